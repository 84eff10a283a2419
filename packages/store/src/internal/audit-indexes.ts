/**
 * The audit's check of the revision index (`R`: stream, rev → seq) and the seq index (`S`:
 * stream, seq → rev) against the log, as merge-joins in key order (README "Fail closed and
 * audit").
 *
 * Why a compact spill and not per-stream cursors: the log is sorted by seq, the indexes by stream
 * then number, so the two orders only agree within one stream. Cursors kept open over every
 * stream's `R` and `S` ranges during the log replay would hold two LevelDB iterators (each with
 * its read-ahead batch and pinned table blocks) per stream for the whole replay — costly with
 * many short streams — and would still need a second pass for index keys of streams the log never
 * names. Instead the log replay appends each change to its stream's {@link StreamChanges}: three
 * typed-array columns (seq, rev, pruned, patch digest), 25 bytes per change instead of the Maps and key strings
 * per transition the audit kept before (about 40× less). Each family is then walked once in key
 * order and compared with one stream's columns at a time; only the current stream's sorted
 * revision view and the problems found are held besides.
 */
import { hash } from 'node:crypto';
import type { JsonObject } from '@stateflow/core';
import { AuditCode } from '../audit-code.js';
import type { RevisionRecord } from './records.js';
import { Family, familyRange, parseKey } from './keys.js';
import type { StorageReader } from '../storage.js';

/** Report one audit problem (see `runAudit`). */
export type ReportProblem = (code: AuditCode, key: Uint8Array | string, detail: string, stream?: string) => void;
/** Decode an index value, reporting an undecodable or ill-shaped one; `undefined` when it was reported. */
export type DecodeIndex = (key: Uint8Array, value: Uint8Array, stream: string) => number | undefined;

/** One stream's changes in log order (so by increasing seq), as growable typed-array columns. */
export class StreamChanges {
  #seqs = new Float64Array(16);
  #revs = new Float64Array(16);
  /** {@link patchDigest} of the change's patch (0 where no revision-index entry is expected). */
  #digests = new Float64Array(16);
  /** 1 for a change of a pruned stub (no patch; no revision-index entry expected). */
  #pruned = new Uint8Array(16);
  #length = 0;

  /**
   * Append the change of `stream` at `seq` that produced `rev` (`change.pruned`: of a pruned
   * stub; `change.digest`: its patch's {@link patchDigest}, 0 when not indexed).
   */
  push(seq: number, rev: number, change: { pruned: boolean; digest: number }): void {
    const { pruned, digest } = change;
    if (this.#length === this.#seqs.length) {
      const grow = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.#seqs = grow(this.#seqs, (n) => new Float64Array(n));
      this.#revs = grow(this.#revs, (n) => new Float64Array(n));
      this.#digests = grow(this.#digests, (n) => new Float64Array(n));
      this.#pruned = grow(this.#pruned, (n) => new Uint8Array(n));
    }
    this.#seqs[this.#length] = seq;
    this.#revs[this.#length] = rev;
    this.#digests[this.#length] = digest;
    this.#pruned[this.#length] = pruned ? 1 : 0;
    this.#length++;
  }

  /**
   * Expected seq-index entries in key (seq) order: every change, pruned or not; those of
   * revisions below `origin` may be missing (compaction deletes them; older stores kept them).
   */
  seqIndex(origin: number): Cursor {
    const revs = this.#revs.subarray(0, this.#length);
    return new Cursor(this.#seqs.subarray(0, this.#length), revs, undefined, Uint8Array.from(revs, (rev) => (rev < origin ? 1 : 0)));
  }

  /**
   * Expected revision-index entries in key (rev) order: the unpruned changes above `origin`;
   * when the log repeats a revision (corruption), the later transition's seq is expected.
   */
  revisionIndex(origin: number): Cursor {
    let picked: number[] = [];
    let sorted = true;
    for (let i = 0; i < this.#length; i++) {
      if (this.#pruned[i] === 1 || (this.#revs[i] as number) <= origin) continue;
      const last = picked.at(-1);
      if (last !== undefined && (this.#revs[last] as number) >= (this.#revs[i] as number)) sorted = false;
      picked.push(i);
    }
    if (!sorted) {
      picked.sort((a, b) => (this.#revs[a] as number) - (this.#revs[b] as number) || a - b);
      picked = picked.filter((i, n) => n + 1 === picked.length || this.#revs[picked[n + 1] as number] !== this.#revs[i]);
    }
    return new Cursor(
      Float64Array.from(picked, (i) => this.#revs[i] as number),
      Float64Array.from(picked, (i) => this.#seqs[i] as number),
      Float64Array.from(picked, (i) => this.#digests[i] as number),
    );
  }
}

/** A position in sorted `keys` (with their `values`) that index keys are merged against. */
class Cursor {
  #i = 0;
  /** The extra value of the entry the last {@link seek} returned (`undefined` when none). */
  extra: number | undefined;
  constructor(
    readonly keys: Float64Array,
    readonly values: Float64Array,
    readonly extras?: Float64Array,
    /** 1 for a key that may be missing: never passed to `missed`. */
    readonly optional?: Uint8Array,
  ) {}

  #miss(missed: (key: number) => void): void {
    const i = this.#i++;
    if (this.optional?.[i] !== 1) missed(this.keys[i] as number);
  }

  /**
   * Move to `n`: every key below it is passed to `missed`. Returns the value stored for `n` (the
   * last one when `n` repeats), or `undefined` when `n` is not expected.
   */
  seek(n: number, missed: (key: number) => void): number | undefined {
    while (this.#i < this.keys.length && (this.keys[this.#i] as number) < n) this.#miss(missed);
    let value: number | undefined;
    this.extra = undefined;
    for (let j = this.#i; j < this.keys.length && this.keys[j] === n; j++) {
      value = this.values[j];
      this.extra = this.extras?.[j];
    }
    return value;
  }

  /** Mark `n` as found in the index (after {@link seek}). */
  consume(n: number): void {
    while (this.#i < this.keys.length && this.keys[this.#i] === n) this.#i++;
  }

  /** Pass every key not yet found to `missed`. */
  finish(missed: (key: number) => void): void {
    while (this.#i < this.keys.length) this.#miss(missed);
  }
}

const NOTHING_EXPECTED = new Cursor(new Float64Array(0), new Float64Array(0));

/**
 * Walk one index family in key order, merging each stream's keys with the cursor `expect` gives
 * for it. `check(key, k, expected, value)` compares one entry and returns whether it counts as
 * found; entries never found are reported by `reportMissing` after the walk, in key order.
 */
async function mergeFamily(
  storage: StorageReader,
  family: typeof Family.rev | typeof Family.seq,
  logged: ReadonlyMap<string, StreamChanges>,
  expect: (stream: string, changes: StreamChanges) => Cursor,
  check: (key: Uint8Array, stream: string, n: number, expected: number | undefined, value: Uint8Array, extra: number | undefined) => boolean,
  malformed: (key: Uint8Array) => void,
  reportMissing: (stream: string, n: number) => void,
): Promise<void> {
  const missing: [string, number][] = [];
  const walked = new Set<string>();
  let stream: string | undefined;
  let cursor = NOTHING_EXPECTED;
  const missedIn = (s: string) => (n: number) => missing.push([s, n]);
  for await (const [key, value] of storage.iterate(familyRange(family))) {
    const k = parseKey(key);
    // Within one family's range a key parses as that family or as unknown.
    if (k.family !== 'rev' && k.family !== 'seq') {
      malformed(key);
      continue;
    }
    if (k.stream !== stream) {
      if (stream !== undefined) cursor.finish(missedIn(stream));
      const changes = logged.get(k.stream);
      // A stream met twice (only possible for key bytes that are not valid UTF-8) expects nothing more.
      cursor = changes === undefined || walked.has(k.stream) ? NOTHING_EXPECTED : expect(k.stream, changes);
      stream = k.stream;
      walked.add(stream);
    }
    const expected = cursor.seek(k.n, missedIn(stream));
    if (check(key, stream, k.n, expected, value, cursor.extra)) cursor.consume(k.n);
  }
  if (stream !== undefined) cursor.finish(missedIn(stream));
  for (const [s, changes] of logged) if (!walked.has(s)) expect(s, changes).finish(missedIn(s));
  for (const [s, n] of missing) reportMissing(s, n);
}

/**
 * `sha256(JSON text of patch)` cut to 48 bits: what the audit keeps of each logged patch to tie
 * the copy in a format-4 revision-index record to the hash-chained transition (both are decoded with
 * the key order they were written with).
 */
export function patchDigest(patch: JsonObject): number {
  return hash('sha256', JSON.stringify(patch), 'buffer').readUIntBE(0, 6);
}

/** Decode a revision-index record, reporting an undecodable, ill-shaped or unsealed one; `undefined` when it was reported. */
export type DecodeRevision = (key: Uint8Array, value: Uint8Array, stream: string, rev: number) => RevisionRecord | undefined;

/**
 * Check the revision index: every unpruned change above its stream's origin has `R/stream/rev`
 * holding its seq (and, in a format-4 record, a copy of its patch equal to the logged one), and naming a checkpoint that exists (its base, or the
 * origin's when compaction removed the base); entries at or below the origin, entries the log
 * does not have and entries that differ from the log are `INDEX_MISMATCH`; malformed keys
 * `UNKNOWN_RECORD`.
 */
export async function checkRevisionIndex(
  storage: StorageReader,
  logged: ReadonlyMap<string, StreamChanges>,
  index: { originOf: (stream: string) => number; hasCheckpoint: (stream: string, rev: number) => boolean },
  decode: DecodeRevision,
  report: ReportProblem,
): Promise<void> {
  const { originOf, hasCheckpoint } = index;
  await mergeFamily(
    storage,
    Family.rev,
    logged,
    (stream, changes) => changes.revisionIndex(originOf(stream)),
    (key, stream, rev, expected, value, digest) => {
      const actual = decode(key, value, stream, rev);
      if (actual === undefined) return true; // present but damaged: reported as such, not as missing
      const origin = originOf(stream);
      const base = Math.max(actual.base, origin);
      if (rev <= origin) report(AuditCode.INDEX_MISMATCH, key, `entry below the origin ${origin} should have been deleted`, stream);
      else if (expected !== actual.seq) report(AuditCode.INDEX_MISMATCH, key, `points at seq ${actual.seq}; the log has this revision at seq ${String(expected)}`, stream);
      else if (actual.patch !== undefined && digest !== patchDigest(actual.patch)) report(AuditCode.INDEX_MISMATCH, key, `its patch differs from the patch of revision ${rev} in transition ${actual.seq}`, stream);
      else if (base > 0 && !hasCheckpoint(stream, base)) report(AuditCode.INDEX_MISMATCH, key, `names checkpoint ${base}, which is missing`, stream);
      return true;
    },
    (key) => report(AuditCode.UNKNOWN_RECORD, key, 'malformed revision-index key'),
    (stream, rev) => report(AuditCode.INDEX_MISMATCH, `R/${stream}/${rev}`, 'revision-index entry is missing', stream),
  );
}

/**
 * Check the seq index: every change in the log at or above its stream's origin has
 * `S/stream/seq` → its rev (below the origin an entry may be missing: compaction deletes them,
 * stores compacted before kept them); a different rev, or an entry where the log has no change
 * of that stream at that seq, is `INDEX_MISMATCH`.
 */
export async function checkSeqIndex(storage: StorageReader, logged: ReadonlyMap<string, StreamChanges>, originOf: (stream: string) => number, decode: DecodeIndex, report: ReportProblem): Promise<void> {
  await mergeFamily(
    storage,
    Family.seq,
    logged,
    (stream, changes) => changes.seqIndex(originOf(stream)),
    (key, stream, _seq, expected, value) => {
      const actual = decode(key, value, stream);
      if (actual !== undefined && expected === undefined) report(AuditCode.INDEX_MISMATCH, key, `says revision ${actual}; the log has no change of this stream at this seq`, stream);
      else if (actual !== undefined && actual !== expected) report(AuditCode.INDEX_MISMATCH, key, `says revision ${actual}; the log has revision ${String(expected)} at this seq`, stream);
      return true;
    },
    (key) => report(AuditCode.UNKNOWN_RECORD, key, 'malformed seq-index key'),
    (stream, seq) => report(AuditCode.INDEX_MISMATCH, `S/${stream}/${seq}`, 'seq-index entry is missing', stream),
  );
}
