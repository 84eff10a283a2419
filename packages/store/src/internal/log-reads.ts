/**
 * Reads of the log by seq (README "Storage layout", "Fail closed and audit"): one verified log
 * record, the transitions of a seq range (every seq keeps a record or a pruned stub, so a gap is
 * a lost record and fails closed), and the revision↔seq lookups through the two indexes.
 */
import { StateflowError } from '@stateflow/core';
import type { StreamId, Transition } from '../types.js';
import { Family, logKey, logRange, parseKey, streamRange } from './keys.js';
import { corrupt, decodeCount, decodeLog } from './records.js';
import type { LogRecord, PrunedRecord } from './records.js';
import { revisionRecord } from './replay.js';
import { headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';
import type { StorageReader } from '../storage.js';

/** The stream's revision as of global `seq` (through the seq index). */
export async function revAtSeq(ctx: StoreContext, stream: StreamId, seq: number, reader: StorageReader = ctx.storage): Promise<number> {
  const h = headOf(ctx, stream);
  if (seq >= h.seq) return h.rev;
  for await (const [key, value] of reader.iterate({ ...streamRange(Family.seq, stream, 0, seq), reverse: true, limit: 1 })) {
    return decodeCount(key, value, stream);
  }
  return 0;
}

/**
 * The seq of the transition that produced revision `rev` of `stream` (through the revision index).
 * @throws STORE_CORRUPT when the index entry is missing
 */
export async function seqOfRev(ctx: StoreContext, stream: StreamId, rev: number): Promise<number> {
  return (await revisionRecord(ctx, stream, rev)).seq;
}

/**
 * The verified log record at `seq` (a transition or a pruned stub); `stream` names the stream
 * being read in a STORE_CORRUPT error.
 * @throws STORE_CORRUPT when the record is missing or damaged
 */
export function logRecord(ctx: StoreContext, seq: number, stream?: string, reader: StorageReader = ctx.storage): Promise<LogRecord> {
  return logEntry(reader, seq, stream, (key, bytes) => decodeLog(key, bytes, seq, { stream }));
}

/**
 * `L/<seq>` as `read` makes it of its key and bytes (a decoded record, an outline);
 * `stream` names the stream being read in a STORE_CORRUPT error.
 * @throws STORE_CORRUPT when the record is missing, or as `read` throws
 */
export async function logEntry<T>(reader: StorageReader, seq: number, stream: string | undefined, read: (key: Uint8Array, bytes: Uint8Array) => T): Promise<T> {
  const key = logKey(seq);
  const bytes = await reader.get(key);
  if (bytes === undefined) throw corrupt(key, 'transition is missing', stream);
  return read(key, bytes);
}

/** The HISTORY_NOT_RETAINED error for a read of a transition that compaction pruned. */
export function prunedError(ctx: StoreContext, record: PrunedRecord): StateflowError {
  const first = record.changes[0];
  const stream = first?.stream ?? '';
  const origin = ctx.heads.get(stream)?.origin ?? 0;
  return new StateflowError(
    'HISTORY_NOT_RETAINED',
    `Transition ${record.seq} was removed by compaction (stream ${stream} now starts at revision ${origin})`,
    { stream, rev: first?.rev ?? 0, origin },
  );
}

/**
 * The transitions with seq `from..to` (both inclusive, `to` ≤ the last seq), or only those
 * changing `stream`, in seq order; pruned stubs are skipped.
 * @throws STORE_CORRUPT at a missing or damaged log record in the range
 */
export async function* transitionsIn(ctx: StoreContext, from: number, to: number, stream?: StreamId, reader: StorageReader = ctx.storage): AsyncGenerator<Transition> {
  if (stream === undefined) {
    for await (const record of logRecordsIn(from, to, reader, decodeLog)) if (!record.pruned) yield record;
    return;
  }
  for await (const [key] of reader.iterate(streamRange(Family.seq, stream, Math.max(from, 1), to))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'seq') continue;
    const record = await logRecord(ctx, parsed.n, stream, reader);
    if (!record.pruned) yield record;
  }
}

/**
 * The log records with seq `from..to` (both inclusive, `to` ≤ the last seq), pruned stubs
 * included, each as `read` makes it of its key, bytes and seq.
 * @throws STORE_CORRUPT at a missing log record in the range
 */
export async function* logRecordsIn<T>(from: number, to: number, reader: StorageReader, read: (key: Uint8Array, bytes: Uint8Array, seq: number) => T): AsyncGenerator<T> {
  // Every seq up to the last one keeps a log record (compaction leaves pruned stubs), so a
  // gap means a record was lost: fail closed instead of skipping it.
  let expected = Math.max(from, 1);
  for await (const [key, value] of reader.iterate(logRange(expected, to))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'log') continue;
    if (parsed.seq !== expected) throw corrupt(logKey(expected), 'transition is missing from the log');
    expected++;
    yield read(key, value, parsed.seq);
  }
  if (expected <= to) throw corrupt(logKey(expected), 'transition is missing from the log');
}
