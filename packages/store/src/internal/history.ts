/**
 * Reads of stored history (README "Opening", "Historical reads", "Fail closed and audit"): this
 * module owns loading a stream's current state on first use (after cross-checking its head
 * against the log), reconstructing a state at any retained revision from the nearest checkpoint
 * plus stored net patches (through the history LRU), the revision↔seq lookups through the
 * revision and seq indexes, single log records, and iterating transitions in seq order. Every
 * record it reads is verified; a damaged one fails closed with STORE_CORRUPT.
 */
import { StateflowError, isJsonObject, patchSeries } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { StreamChange, StreamId, Transition } from '../types.js';
import type { CheckpointDebt } from './checkpoint-policy.js';
import { decodeValue, encodeValue } from './codec.js';
import { Family, checkpointKey, headKey, logKey, logRange, parseKey, revKey, streamRange } from './keys.js';
import { corrupt, decodeCheckpoint, decodeCount, decodeLog } from './records.js';
import type { HeadRecord, LogRecord, PrunedRecord } from './records.js';
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
interface Replay {
  state: JsonObject;
  debt: CheckpointDebt;
}

/**
 * The head, after checking `rev` is within `[origin, head]`.
 * @throws REVISION_NOT_FOUND beyond the head, HISTORY_NOT_RETAINED below the origin
 */
function retained(ctx: StoreContext, stream: StreamId, rev: number): HeadRecord {
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
 * Current state, loading it (latest checkpoint + tail) on first use, after cross-checking the
 * head record against the stored log ({@link verifyHead}). `exclusive`: the caller
 * holds the exclusive lock already (taking a read lock then would wait for itself).
 */
export async function currentOf(ctx: StoreContext, stream: StreamId, exclusive = false): Promise<JsonObject> {
  const loaded = ctx.current.get(stream);
  if (loaded !== undefined) return loaded;
  const h = headOf(ctx, stream);
  const load = async (): Promise<Replay | null> => {
    await verifyHead(ctx, stream, h);
    return h.rev === 0 ? null : replay(ctx, stream, h.rev, h, true);
  };
  let rebuilt: Replay | null;
  try {
    rebuilt = await (exclusive ? load() : ctx.lock.read(load));
  } catch (err) {
    // A publish may have moved the head while this load ran: the check was against a stale head.
    if (headOf(ctx, stream) !== h) return currentOf(ctx, stream, exclusive);
    throw err;
  }
  if (rebuilt === null) return ctx.current.get(stream) ?? EMPTY;
  // A publish may have installed a newer state while this load ran; never overwrite it.
  if (!ctx.current.has(stream) && ctx.heads.get(stream) === h) {
    ctx.current.set(stream, rebuilt.state);
    ctx.debt.set(stream, rebuilt.debt);
  }
  return ctx.current.get(stream) ?? rebuilt.state;
}

/**
 * Fail closed when `stream`'s head record disagrees with the log: the latest seq-index entry
 * of the stream (one reverse seek; the seq index survives compaction) must be the head's
 * `seq` → `rev`, and the transition at that seq must hold that revision of the stream (one
 * point read). Marks the stream broken on a mismatch.
 * @throws STORE_CORRUPT naming the head key
 */
async function verifyHead(ctx: StoreContext, stream: StreamId, h: HeadRecord): Promise<void> {
  let latest: { seq: number; rev: number } | null = null;
  for await (const [key, value] of ctx.storage.iterate({ ...streamRange(Family.seq, stream, 0, ctx.lastSeq), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family === 'seq') latest = { seq: parsed.n, rev: decodeCount(key, value, stream) };
  }
  let problem: string | null = null;
  if (latest === null) {
    if (h.rev !== 0) problem = `head says revision ${h.rev} at seq ${h.seq}, but the seq index has no entry for the stream`;
  } else if (latest.seq !== h.seq || latest.rev !== h.rev) {
    problem = `head says revision ${h.rev} at seq ${h.seq}, but the seq index ends at revision ${latest.rev} at seq ${latest.seq}`;
  } else {
    const bytes = await ctx.storage.get(logKey(h.seq));
    const record = bytes === undefined ? null : decodeLog(logKey(h.seq), bytes, h.seq, stream, false);
    if (!record?.changes.some((c) => c.stream === stream && c.rev === h.rev)) {
      problem = `head says revision ${h.rev} at seq ${h.seq}, but transition ${h.seq} does not hold that revision`;
    }
  }
  if (problem === null || headOf(ctx, stream) !== h) return;
  const err = corrupt(headKey(stream), problem, stream);
  ctx.broken.set(stream, err);
  throw err;
}

/**
 * `stream` at a retained `rev` (`Store.stateAt` once its arguments are checked): the current
 * state at the head, else the history LRU, else a reconstruction under a read lock.
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT
 */
export async function stateAt(ctx: StoreContext, stream: StreamId, rev: number): Promise<JsonObject> {
  const h = retained(ctx, stream, rev);
  if (rev === h.rev) return currentOf(ctx, stream);
  const key = `${stream}\u0000${rev}`;
  const cached = ctx.history.get(key);
  if (cached !== undefined) return cached;
  const state = await ctx.lock.read(() => reconstruct(ctx, stream, rev, retained(ctx, stream, rev)));
  ctx.history.set(key, state);
  return state;
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

/** `stream` at `rev` for callers that hold the write lock (no compaction can run meanwhile). */
export async function stateAtUnlocked(ctx: StoreContext, stream: StreamId, rev: number, exclusive = false): Promise<JsonObject> {
  const h = retained(ctx, stream, rev);
  if (rev === h.rev) return currentOf(ctx, stream, exclusive);
  return reconstruct(ctx, stream, rev, h);
}

/** Rebuild `stream` at `rev` ({@link replay}). */
async function reconstruct(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord): Promise<JsonObject> {
  return (await replay(ctx, stream, rev, h)).state;
}

/**
 * Rebuild `stream` at `rev`: nearest checkpoint at or below `rev` (never below the origin),
 * then at most K−1 stored net patches; with `measure`, also the checkpoint debt at `rev`
 * (otherwise its `patchBytes` is 0). Fails closed with STORE_CORRUPT.
 */
async function replay(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord, measure = false): Promise<Replay> {
  let base = EMPTY;
  let baseRev = 0;
  let checkpointBytes = 0;
  for await (const [key, value] of ctx.storage.iterate({ ...streamRange(Family.checkpoint, stream, h.origin, rev), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family !== 'checkpoint') continue;
    // A checkpoint is the state at its revision: the history cache may hold it already.
    const cacheKey = `${stream}\u0000${parsed.n}`;
    base = ctx.history.get(cacheKey) ?? ctx.verified.decode(key, value, (verify) => decodeCheckpoint(key, value, stream, parsed.n, verify)).state;
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
    if (measure) patchBytes += encodeValue(change.patch).byteLength;
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
      const record = ctx.verified.decode(key, bytes, (verify) => decodeLog(key, bytes, seq, stream, verify));
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

/** The stream's revision as of global `seq` (through the seq index). */
export async function revAtSeq(ctx: StoreContext, stream: StreamId, seq: number): Promise<number> {
  const h = headOf(ctx, stream);
  if (seq >= h.seq) return h.rev;
  for await (const [key, value] of ctx.storage.iterate({ ...streamRange(Family.seq, stream, 0, seq), reverse: true, limit: 1 })) {
    return decodeCount(key, value, stream);
  }
  return 0;
}

/**
 * The seq of the transition that produced revision `rev` of `stream` (through the revision index).
 * @throws STORE_CORRUPT when the index entry is missing
 */
export async function seqOfRev(ctx: StoreContext, stream: StreamId, rev: number): Promise<number> {
  const key = revKey(stream, rev);
  const bytes = await ctx.storage.get(key);
  if (bytes === undefined) throw corrupt(key, 'revision index entry is missing', stream);
  return decodeCount(key, bytes, stream);
}

/**
 * The verified log record at `seq` (a transition or a pruned stub); `stream` names the stream
 * being read in a STORE_CORRUPT error.
 * @throws STORE_CORRUPT when the record is missing or damaged
 */
export async function logRecord(ctx: StoreContext, seq: number, stream?: string): Promise<LogRecord> {
  const key = logKey(seq);
  const bytes = await ctx.storage.get(key);
  if (bytes === undefined) throw corrupt(key, 'transition is missing', stream);
  return decodeLog(key, bytes, seq, stream);
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
export async function* transitionsIn(ctx: StoreContext, from: number, to: number, stream?: StreamId): AsyncGenerator<Transition> {
  if (stream === undefined) {
    // Every seq up to the last one keeps a log record (compaction leaves pruned stubs), so a
    // gap means a record was lost: fail closed instead of skipping it.
    let expected = Math.max(from, 1);
    for await (const [key, value] of ctx.storage.iterate(logRange(expected, to))) {
      const parsed = parseKey(key);
      if (parsed.family !== 'log') continue;
      if (parsed.seq !== expected) throw corrupt(logKey(expected), 'transition is missing from the log');
      expected++;
      const record = decodeLog(key, value, parsed.seq);
      if (!record.pruned) yield record;
    }
    if (expected <= to) throw corrupt(logKey(expected), 'transition is missing from the log');
    return;
  }
  for await (const [key] of ctx.storage.iterate(streamRange(Family.seq, stream, Math.max(from, 1), to))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'seq') continue;
    const record = await logRecord(ctx, parsed.n, stream);
    if (!record.pruned) yield record;
  }
}
