/**
 * The crash policy (DESIGN.md "Process crash vs power loss"; README "Durability contract"): what
 * a store may be opened with when LevelDB's write-ahead log is damaged, decided before LevelDB
 * reads it (its own recovery skips damage and would leave a hole in the log).
 *
 * - **A process crash** (the log was written on this boot of the machine): the OS had every
 *   byte LevelDB handed it, so the only damage a crash leaves is the record being appended, cut
 *   short by the end of the file — a torn tail, which was never acknowledged and which LevelDB's
 *   recovery drops. Any other damage — a complete record that does not verify, zeros, damage
 *   followed by records that verify — is `STORE_CORRUPT`.
 * - **An OS crash or power loss** (the log was written on an earlier boot): what was never
 *   synced may be lost or garbled, its pages written out of order. Damage with no synced record
 *   after it is that loss: the store opens with the longest prefix that verifies, and the tail
 *   from the damage on is dropped — the one repair made in place, with the dropped bytes kept
 *   beside the store (`tail-repair.ts`). Damage with a synced record after it is damage to
 *   synced data (a later fsync made everything before it durable): `STORE_CORRUPT`.
 *
 * LevelDB's log does not say which records were synced or when they were written; the LevelDB
 * adapter makes it say so with the mark `{ boot, synced }` it puts in every batch (`wal-mark.ts`).
 */
import { seqOfLogKey } from '@stateflow/store';
import { WAL_MARK_KEY, decodeWalMark } from './wal-mark.js';
import type { WalMark } from './wal-mark.js';
import type { LogRecord, LogScan } from './log-format.js';
import { batchPuts } from './write-batch.js';

/** A write-ahead log that LevelDB's recovery will replay, as scanned before it opens. */
export interface ReplayedLog {
  name: string;
  bytes: number;
  scan: LogScan;
}

/** Bytes of one log to drop: from `from` to its end (`bytes`). */
export interface TailCut {
  file: string;
  from: number;
  bytes: number;
}

/** What the store may be opened with (see the module comment). */
export type CrashVerdict =
  | { kind: 'open' }
  | { kind: 'corrupt'; file: string; offset: number; detail: string }
  | {
      kind: 'drop-tail';
      /** The damaged log from its intact prefix on, and every later log whole. */
      cuts: TailCut[];
      /** The damage, for the notice. */
      file: string;
      offset: number;
      reason: string;
      /** The highest seq the dropped records name (`null`: none that verify). */
      lostThrough: number | null;
    };

/** What a log record says of itself: the mark its batch carries and the transitions it puts. */
interface RecordFacts {
  mark: WalMark | null;
  seqs: number[];
}

/**
 * Decide what the store may be opened with, from the logs LevelDB will replay (oldest first) and
 * the boot id of this process.
 */
export function crashVerdict(logs: ReplayedLog[], bootNow: string): CrashVerdict {
  const at = logs.findIndex((log) => log.scan.damage !== null);
  const log = logs[at];
  const damage = log?.scan.damage;
  if (log === undefined || damage === undefined || damage === null) return { kind: 'open' };
  const before = [...logs.slice(0, at).flatMap((l) => l.scan.records), ...log.scan.records].map(factsOf);
  const later = logs.slice(at + 1);
  const after = [...log.scan.later, ...later.flatMap((l) => [...l.scan.records, ...l.scan.later])].map(factsOf);
  // A write cut short by the end of the newest log, with nothing that verifies after it.
  const torn = damage.cutByEnd && damage.verifiedAfter === null && later.every((l) => l.bytes === 0);
  const writer = before.findLast((f) => f.mark !== null)?.mark ?? after.find((f) => f.mark !== null)?.mark ?? null;
  const what = `write-ahead log damaged (${damage.reason})`;
  if (writer === null || writer.boot === bootNow) {
    // A process crash: the torn tail is the write that was being appended, never acknowledged.
    if (torn) return { kind: 'open' };
    return {
      kind: 'corrupt',
      file: log.name,
      offset: damage.offset,
      detail: `${what}, written on this boot of the machine: a process crash only cuts short the record being appended, so this is damage; LevelDB's recovery would silently drop the damaged records and what follows them in their block, with the transitions in them`,
    };
  }
  const synced = after.find((f) => f.mark?.synced === true);
  if (synced !== undefined) {
    const seq = synced.seqs.length > 0 ? ` (transition ${Math.max(...synced.seqs)})` : '';
    return {
      kind: 'corrupt',
      file: log.name,
      offset: damage.offset,
      detail: `${what} before a synced record${seq}: a power loss garbles only what was never synced, so this is damage to synced data`,
    };
  }
  const seqs = after.flatMap((f) => f.seqs);
  return {
    kind: 'drop-tail',
    cuts: [{ file: log.name, from: log.scan.intactBytes, bytes: log.bytes }, ...later.filter((l) => l.bytes > 0).map((l) => ({ file: l.name, from: 0, bytes: l.bytes }))],
    file: log.name,
    offset: damage.offset,
    reason: damage.reason,
    lostThrough: seqs.length > 0 ? Math.max(...seqs) : null,
  };
}

/** The mark and transition seqs of one record (nothing, for a record that is not a well-formed batch). */
function factsOf(record: LogRecord): RecordFacts {
  const facts: RecordFacts = { mark: null, seqs: [] };
  let puts;
  try {
    puts = batchPuts(record.data);
  } catch {
    return facts;
  }
  for (const { key, value } of puts) {
    const seq = seqOfLogKey(key);
    if (seq !== null) {
      facts.seqs.push(seq);
    } else if (WAL_MARK_KEY.equals(key)) {
      facts.mark = decodeWalMark(value); // a mark that does not decode says nothing
    }
  }
  return facts;
}
