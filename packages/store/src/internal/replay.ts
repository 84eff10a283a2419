/**
 * Historical states (README "Historical reads"): a stream at any retained revision is rebuilt
 * from the nearest checkpoint at or below it plus at most K−1 stored net patches, each read
 * through the revision index from a hash-verified transition whose chain link holds; results go
 * through the history LRU. Every record read is verified; a damaged one fails closed.
 */
import { StateflowError, isJsonObject, patchSeries } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { StreamChange, StreamId } from '../types.js';
import type { CheckpointDebt } from './checkpoint-policy.js';
import { decodeValue, encodeValue } from './codec.js';
import { Family, checkpointKey, logKey, parseKey, revKey, streamRange } from './keys.js';
import { corrupt, decodeCheckpoint, decodeCount, decodeLog } from './records.js';
import type { HeadRecord, LogRecord } from './records.js';
import { EMPTY, headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';
import { stateProblem } from './validate.js';

/** `prevHash` of a raw log record, or `undefined` when it does not decode. */
function linkOf(bytes: Uint8Array): unknown {
  try {
    const v = decodeValue(bytes);
    return isJsonObject(v) ? v.prevHash : undefined;
  } catch {
    return undefined;
  }
}

/** A rebuilt state and the checkpoint debt at its revision. */
export interface Replay {
  state: JsonObject;
  debt: CheckpointDebt;
}

/**
 * The head, after checking `rev` is within `[origin, head]`.
 * @throws REVISION_NOT_FOUND beyond the head, HISTORY_NOT_RETAINED below the origin
 */
export function retained(ctx: StoreContext, stream: StreamId, rev: number): HeadRecord {
  const h = headOf(ctx, stream);
  if (rev > h.rev) {
    throw new StateflowError('REVISION_NOT_FOUND', `Stream ${stream} has no revision ${rev} (head is ${h.rev})`, { stream, rev, head: h.rev });
  }
  if (rev < h.origin) {
    throw new StateflowError(
      'HISTORY_NOT_RETAINED',
      `Revision ${rev} of stream ${stream} is before its origin ${h.origin} and no longer retained`,
      { stream, rev, origin: h.origin },
    );
  }
  return h;
}

/**
 * The stored net patch that produced revision `rev` of `stream` (`Store.patchAt` once its
 * arguments are checked).
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT
 */
export async function patchAt(ctx: StoreContext, stream: StreamId, rev: number): Promise<JsonObject> {
  const h = headOf(ctx, stream);
  if (rev === 0 || rev > h.rev) {
    throw new StateflowError('REVISION_NOT_FOUND', `Stream ${stream} has no revision ${rev} with a patch (head is ${h.rev})`, { stream, rev, head: h.rev });
  }
  return ctx.lock.read(async () => {
    retained(ctx, stream, rev - 1);
    const [change] = await changes(ctx, stream, rev, rev);
    return (change as StreamChange).patch;
  });
}

/**
 * Rebuild `stream` at `rev`: nearest checkpoint at or below `rev` (never below the origin),
 * then at most K−1 stored net patches; with `options.measure`, also the checkpoint debt at
 * `rev` (otherwise its `patchBytes` is 0). Fails closed with STORE_CORRUPT.
 */
export async function replay(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord, options: { measure?: boolean } = {}): Promise<Replay> {
  let base = EMPTY;
  let baseRev = 0;
  let checkpointBytes = 0;
  for await (const [key, value] of ctx.storage.iterate({ ...streamRange(Family.checkpoint, stream, h.origin, rev), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family !== 'checkpoint') continue;
    // A checkpoint is the state at its revision: the history cache may hold it already.
    const cacheKey = `${stream}\u0000${parsed.n}`;
    base = ctx.history.get(cacheKey) ?? ctx.verified.decode(key, value, (options) => decodeCheckpoint(key, value, stream, parsed.n, options)).state;
    ctx.history.set(cacheKey, base);
    baseRev = parsed.n;
    checkpointBytes = value.byteLength;
  }
  if (baseRev < h.origin) throw corrupt(checkpointKey(stream, h.origin), 'the checkpoint at the origin is missing', stream);
  // One patch series: the tail is applied with one copy of each touched container and one
  // deep freeze, instead of a copy and a freeze per patch.
  const series = patchSeries(base);
  let patchBytes = 0;
  for (const change of baseRev === rev ? [] : await changes(ctx, stream, baseRev + 1, rev)) {
    try {
      series.apply(change.patch);
    } catch (err) {
      throw corrupt(revKey(stream, change.rev), `stored patch does not apply: ${(err as Error).message}`, stream, err);
    }
    if (options.measure === true) patchBytes += encodeValue(change.patch).byteLength;
  }
  const state = series.state();
  const problem = stateProblem(stream, state);
  if (problem !== null) throw corrupt(revKey(stream, rev), `replay gives an invalid state: ${problem}`, stream);
  return { state, debt: { patchBytes, checkpointBytes } };
}

/**
 * The stored changes of `stream` for revisions `from..to` (inclusive), through the revision
 * index, each from a hash-verified transition whose chain link to its successor holds.
 */
async function changes(ctx: StoreContext, stream: StreamId, from: number, to: number): Promise<StreamChange[]> {
  const seqs: number[] = [];
  for await (const [key, value] of ctx.storage.iterate(streamRange(Family.rev, stream, from, to))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'rev') continue;
    if (parsed.n !== from + seqs.length) throw corrupt(revKey(stream, from + seqs.length), 'revision index entry is missing', stream);
    seqs.push(decodeCount(key, value, stream));
  }
  if (seqs.length !== to - from + 1) throw corrupt(revKey(stream, from + seqs.length), 'revision index entry is missing', stream);
  const own = new Set(seqs);
  const linkSeqs = seqs.map((s) => s + 1).filter((s) => s <= ctx.lastSeq && !own.has(s));
  const keys = [...seqs, ...linkSeqs].map(logKey);
  const values = await ctx.storage.getMany(keys);
  const records = new Map<number, LogRecord>();
  const prevHashes = new Map<number, unknown>();
  keys.forEach((key, i) => {
    const seq = (parseKey(key) as { seq: number }).seq;
    const bytes = values[i];
    if (own.has(seq)) {
      if (bytes === undefined) throw corrupt(key, 'transition is missing', stream);
      const record = ctx.verified.decode(key, bytes, (options) => decodeLog(key, bytes, seq, { stream, ...options }));
      records.set(seq, record);
      prevHashes.set(seq, record.prevHash);
    } else if (bytes !== undefined) {
      // A neighbour's record is only read for its chain link; its own damage is not this stream's.
      prevHashes.set(seq, linkOf(bytes));
    }
  });
  return seqs.map((seq, i) => {
    const rev = from + i;
    const record = records.get(seq) as LogRecord;
    const next = prevHashes.get(seq + 1);
    if (typeof next === 'string' && next !== record.hash) throw corrupt(logKey(seq + 1), 'hash chain broken: prevHash does not match the previous transition', stream);
    const change = record.pruned ? undefined : record.changes.find((c) => c.stream === stream);
    if (change === undefined || change.rev !== rev) throw corrupt(logKey(seq), `transition does not hold revision ${rev} of the stream`, stream);
    return change;
  });
}
