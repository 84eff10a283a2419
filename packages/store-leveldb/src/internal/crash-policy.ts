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
 *   beside the store (`tail-repair.ts`). Damage is damage to synced data — `STORE_CORRUPT` —
 *   when a synced record of the same log follows it (that record's fsync made the damaged bytes
 *   durable), or when any record after it says transitions past the intact prefix were synced
 *   before it was written (its mark's `ackedThrough`): so a garbled synced record followed by
 *   buffered ones is refused, not dropped as buffered. A log that ends before the LevelDB
 *   sequence the next log continues from is damaged at its end (a power loss after a log
 *   switch). (A store not closed before a reboot whose logs are intact opens with a notice that
 *   buffered transitions may have been lost: `disk-storage.ts`, from the last mark.)
 *
 * LevelDB's log does not say which records were synced or when they were written; the LevelDB
 * adapter makes it say so with the mark `{ boot, synced, ackedThrough }` it puts in every batch
 * (`wal-mark.ts`).
 */
import { seqOfLogKey } from '@stateflow/store';
import { WAL_MARK_KEY, decodeWalMark } from './wal-mark.js';
import type { WalMark } from './wal-mark.js';
import type { LogDamage, LogRecord, LogScan } from './log-format.js';
import { batchHeader, batchPuts } from './write-batch.js';

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

/** What a log record says of itself: the mark its batch carries, the transitions it puts, its LevelDB sequence range. */
interface RecordFacts {
  mark: WalMark | null;
  seqs: number[];
  /** LevelDB's sequence of the batch's first operation and the sequence after its last (`null`: not a batch). */
  sequence: { first: number; next: number } | null;
}

/** The first damage of the logs: in a log's bytes, or records missing at the end of a log that the next one continues after. */
interface FirstDamage {
  at: number;
  damage: LogDamage;
  /** Records of log `at` after the damage that verify. */
  later: LogRecord[];
  /** Where log `at`'s intact prefix ends. */
  intactBytes: number;
}

/**
 * Decide what the store may be opened with, from the logs LevelDB will replay (oldest first) and
 * the boot id of this process.
 */
export function crashVerdict(logs: ReplayedLog[], bootNow: string): CrashVerdict {
  const first = firstDamage(logs);
  if (first === null) return { kind: 'open' };
  const { at, damage } = first;
  const log = logs[at] as ReplayedLog;
  const before = [...logs.slice(0, at).flatMap((l) => l.scan.records), ...log.scan.records].map(factsOf);
  const laterLogs = logs.slice(at + 1);
  const sameLog = first.later.map(factsOf);
  const after = [...sameLog, ...laterLogs.flatMap((l) => [...l.scan.records, ...l.scan.later]).map(factsOf)];
  // A write cut short by the end of the newest log, with nothing that verifies after it.
  const torn = damage.cutByEnd && damage.verifiedAfter === null && laterLogs.every((l) => l.bytes === 0);
  const writer = before.findLast((f) => f.mark !== null)?.mark ?? after.find((f) => f.mark !== null)?.mark ?? null;
  const what = `write-ahead log damaged (${damage.reason})`;
  const corrupt = (detail: string): CrashVerdict => ({ kind: 'corrupt', file: log.name, offset: damage.offset, detail: `${what}${detail}` });
  const processCrash = writer === null || writer.boot === bootNow;
  // A process crash: the torn tail is the write that was being appended, never acknowledged.
  if (processCrash && torn) return { kind: 'open' };
  // Nothing in the logs verifies: the session's first write — synced before anything is
  // acknowledged — never reached the disk whole, so nothing acknowledged was in them.
  if (before.length === 0 && after.length === 0) return dropTail(logs, first, []);
  if (processCrash) {
    return corrupt(
      `, written on this boot of the machine: a process crash only cuts short the record being appended, so this is damage; LevelDB's recovery would silently drop the damaged records and what follows them in their block, with the transitions in them`,
    );
  }
  // After a reboot. A synced record later in the same log: its fsync made the damaged bytes durable.
  const synced = sameLog.find((f) => f.mark?.synced === true);
  if (synced !== undefined) {
    const seq = synced.seqs.length > 0 ? ` (transition ${Math.max(...synced.seqs)})` : '';
    return corrupt(` before a synced record${seq} of the same log: a power loss garbles only what was never synced, so this is damage to synced data`);
  }
  // A record after the damage that was written once transitions past the intact prefix were synced.
  const kept = Math.max(0, ...before.flatMap((f) => f.seqs));
  const through = Math.max(0, ...after.map((f) => f.mark?.ackedThrough ?? 0));
  if (through > kept) {
    return corrupt(
      ` after transition ${kept}, while a later record says every transition through ${through} was synced before it was written: a power loss garbles only what was never synced, so this is damage to synced data`,
    );
  }
  return dropTail(logs, first, after);
}

/** Drop log `first.at` from its intact prefix on, and every later log; `after`: the records dropped that verify. */
function dropTail(logs: ReplayedLog[], first: FirstDamage, after: RecordFacts[]): CrashVerdict {
  const log = logs[first.at] as ReplayedLog;
  const cuts = [{ file: log.name, from: first.intactBytes, bytes: log.bytes }, ...logs.slice(first.at + 1).map((l) => ({ file: l.name, from: 0, bytes: l.bytes }))];
  const seqs = after.flatMap((f) => f.seqs);
  return {
    kind: 'drop-tail',
    cuts: cuts.filter((cut) => cut.bytes > cut.from),
    file: log.name,
    offset: first.damage.offset,
    reason: first.damage.reason,
    lostThrough: seqs.length > 0 ? Math.max(...seqs) : null,
  };
}

/**
 * The first damage of the logs, oldest first: a log's own, or a log that ends before the records
 * the next log continues from (LevelDB's batch sequence numbers run on across logs, so a log cut
 * at a record boundary with a later log after it shows its gap).
 */
function firstDamage(logs: ReplayedLog[]): FirstDamage | null {
  let last: { log: number; next: number } | null = null;
  for (const [at, log] of logs.entries()) {
    const head = log.scan.records[0];
    const sequence = head === undefined ? null : factsOf(head).sequence;
    if (last !== null && sequence !== null && sequence.first !== last.next) {
      const gapped = logs[last.log] as ReplayedLog;
      const reason = `its records end at LevelDB sequence ${last.next - 1}, while ${log.name} continues from ${sequence.first}: records missing at its end`;
      return { at: last.log, damage: { offset: gapped.bytes, reason, cutByEnd: false, verifiedAfter: null }, later: [], intactBytes: gapped.bytes };
    }
    if (log.scan.damage !== null) return { at, damage: log.scan.damage, later: log.scan.later, intactBytes: log.scan.intactBytes };
    const tail = log.scan.records.at(-1);
    const end = tail === undefined ? null : factsOf(tail).sequence;
    if (end !== null) last = { log: at, next: end.next };
  }
  return null;
}

/** The mark, transition seqs and sequence range of one record (nothing, for a record that is not a well-formed batch). */
function factsOf(record: LogRecord): RecordFacts {
  const facts: RecordFacts = { mark: null, seqs: [], sequence: null };
  let puts;
  try {
    const header = batchHeader(record.data);
    facts.sequence = { first: header.sequence, next: header.sequence + header.count };
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
