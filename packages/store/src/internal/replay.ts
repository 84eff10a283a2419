/**
 * Historical states (README "Historical reads"): a stream at any retained revision is rebuilt
 * from the nearest checkpoint at or below it plus at most K−1 stored net patches, read from the
 * stream's sealed revision-index records; checkpoints go through the history LRU. Every record
 * read is verified by its seal; a damaged one fails closed.
 */
import { StateTree, StateflowError, hasOwn, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import type { StreamId } from '../types.js';
import { NO_DEBT } from './checkpoint-policy.js';
import type { CheckpointDebt } from './checkpoint-policy.js';
import { encodeValue } from './codec.js';
import { checkpointKey, logKey, revKey } from './keys.js';
import { checkpointSeq, readCheckpoint } from './page-reads.js';
import type { PageLayout, TailPatch } from './paged-checkpoint.js';
import { replayReader } from './replay-prefetch.js';
import { corrupt, decodeLog, decodeRevision } from './records.js';
import type { HeadRecord, RevisionRecord } from './records.js';
import { EMPTY, headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';
import type { StorageReader } from '../storage.js';
import { stateProblem } from './validate.js';

/** A revision-index record with the net patch of its revision: its own copy (format 4) or its transition's. */
export interface PatchedRevision extends RevisionRecord {
  patch: JsonObject;
}

/** A rebuilt state and the checkpoint debt at its revision. */
export interface Replay {
  state: JsonObject;
  debt: CheckpointDebt;
}

/** A rebuilt state as a tree (nothing built beyond what the tail changed) and the checkpoint debt at its revision. */
export interface TreeReplay {
  tree: StateTree;
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
 * arguments are checked), from its transition's log record, which the sealed revision-index
 * record names (or from a format-4 revision-index record's own copy).
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT
 */
export async function patchAt(ctx: StoreContext, stream: StreamId, rev: number, reader: StorageReader = ctx.storage): Promise<JsonObject> {
  const h = headOf(ctx, stream);
  if (rev === 0 || rev > h.rev) {
    throw new StateflowError('REVISION_NOT_FOUND', `Stream ${stream} has no revision ${rev} with a patch (head is ${h.rev})`, { stream, rev, head: h.rev });
  }
  return ctx.lock.read(async () => {
    retained(ctx, stream, rev - 1);
    const [revision] = await withPatches(reader, stream, rev - 1, [await revisionRecord(ctx, stream, rev, reader)]);
    return (revision as PatchedRevision).patch;
  });
}

/**
 * The global seq of the transition that produced revision `rev` (≥ 1) of `stream`
 * (`Store.revisionSeq` once its arguments are checked): the head's own seq, the origin
 * checkpoint's (compaction deletes the revision-index entries up to the origin), or the sealed
 * revision-index record's — one point read at most.
 * @throws REVISION_NOT_FOUND for 0 or beyond the head, HISTORY_NOT_RETAINED below the origin, STORE_CORRUPT
 */
export async function revisionSeq(ctx: StoreContext, stream: StreamId, rev: number, reader: StorageReader = ctx.storage): Promise<number> {
  if (rev === 0) throw new StateflowError('REVISION_NOT_FOUND', `Revision 0 of stream ${stream} is its empty start: no transition produced it`, { stream, rev, head: headOf(ctx, stream).rev });
  return ctx.lock.read(async () => {
    const h = retained(ctx, stream, rev);
    if (rev === h.rev) return h.seq;
    if (rev > h.origin) return (await revisionRecord(ctx, stream, rev, reader)).seq;
    const key = checkpointKey(stream, rev);
    const [bytes] = await readMany(reader, [key]);
    if (bytes === undefined) throw corrupt(key, 'the origin checkpoint is missing', stream);
    return checkpointSeq(key, bytes, stream, rev);
  });
}

/** The values at `keys`: synchronous point reads where the reader has them, else one `getMany`. */
async function readMany(reader: StorageReader, keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
  if (reader.getSync === undefined) return keys.length === 0 ? [] : reader.getMany(keys);
  return keys.map((key) => (reader.getSync as (key: Uint8Array) => Uint8Array | undefined)(key));
}

/** The verified `R/<stream>/<rev>` record. @throws STORE_CORRUPT when it is missing or damaged */
export async function revisionRecord(ctx: StoreContext, stream: StreamId, rev: number, reader: StorageReader = ctx.storage): Promise<RevisionRecord> {
  const key = revKey(stream, rev);
  const [bytes] = await readMany(reader, [key]);
  return verifiedRevision(key, bytes, stream, rev);
}

function verifiedRevision(key: Uint8Array, bytes: Uint8Array | undefined, stream: StreamId, rev: number): RevisionRecord {
  if (bytes === undefined) throw corrupt(key, 'revision index entry is missing', stream);
  return decodeRevision(key, bytes, stream, rev);
}

/**
 * `records`, the revision-index records of revisions `after + 1, after + 2, …` of `stream`,
 * each with its net patch: a format-4 record's own copy, else the change of that revision in
 * the transition the record names (format 5; those log records read in one go, each verified by
 * its seal — as the revision-index record's copy was by its own: the audit ties both to the chain).
 * @throws STORE_CORRUPT when a log record is missing, damaged, or does not hold the revision
 */
export async function withPatches(reader: StorageReader, stream: StreamId, after: number, records: readonly RevisionRecord[]): Promise<PatchedRevision[]> {
  const logged = records.flatMap((record, i) => (record.patch === undefined ? [{ rev: after + 1 + i, seq: record.seq }] : []));
  const keys = logged.map(({ seq }) => logKey(seq));
  const values = await readMany(reader, keys);
  const patches = logged.map(({ rev, seq }, i) => {
    const key = keys[i] as Uint8Array;
    const bytes = values[i];
    if (bytes === undefined) throw corrupt(key, 'transition is missing', stream);
    const record = decodeLog(key, bytes, seq, { stream, verifyHash: false });
    const change = record.pruned ? undefined : record.changes.find((c) => c.stream === stream && c.rev === rev);
    if (change === undefined) throw corrupt(revKey(stream, rev), `points at transition ${seq}, which does not hold revision ${rev} of the stream`, stream);
    return change.patch;
  });
  let next = 0;
  return records.map((record) => (record.patch === undefined ? { seq: record.seq, base: record.base, patch: patches[next++] as JsonObject } : (record as PatchedRevision)));
}

/**
 * Rebuild `stream` at `rev` (README "Historical reads"): the revision-index record at `rev` names
 * the checkpoint it starts from (never below the origin); that checkpoint and the records after
 * it are point reads (synchronous on LevelDB), each verified by its seal, and their patches are
 * applied as one patch series. With `options.measure`, also the checkpoint debt at `rev`
 * (otherwise its `tailBytes` is 0). `options.reader`: where the records are read (default the
 * storage; a read replica that covers `rev`). Fails closed with STORE_CORRUPT.
 */
export async function replay(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord, options: { measure?: boolean; reader?: StorageReader } = {}): Promise<Replay> {
  const { tree, debt } = await replayTree(ctx, stream, rev, h, options);
  return { state: tree.state(), debt };
}

/**
 * {@link replay} as a tree: the tail's patches are applied to the checkpoint's state as a state
 * tree, each at the cost of what it changes, and nothing is built — a path read
 * (`Store.valueAt`) then builds only the value it reads. `options.path`: only the value at that
 * path will be read — of a paged checkpoint, only the page on the path is read, and the tree
 * holds only that member of the large object (README "Paged checkpoints"). With
 * `options.measure`, the debt also carries a paged checkpoint's layout and the tail's patches.
 */
export async function replayTree(ctx: StoreContext, stream: StreamId, rev: number, h: HeadRecord, options: { measure?: boolean; reader?: StorageReader; path?: readonly PatchPathStep[] } = {}): Promise<TreeReplay> {
  if (rev === 0) return { tree: StateTree.of(EMPTY), debt: NO_DEBT };
  // One round trip where the reader can (the checkpoint, its pages and the tail fetched together).
  const reader = await replayReader(ctx, stream, rev, h, options.reader ?? ctx.storage, options);
  // A revision with a checkpoint of its own starts there: its revision-index record (which may
  // hold a whole first state as its patch) is not read.
  const own = rev === h.origin ? undefined : (await readMany(reader, [checkpointKey(stream, rev)]))[0];
  const last = rev === h.origin || own !== undefined ? null : await revisionRecord(ctx, stream, rev, reader);
  const baseRev = last === null ? rev : Math.max(last.base, h.origin);
  const cacheKey = `${stream}\u0000${baseRev}`;
  // A measure reads the checkpoint itself: its size and (paged) its layout make the debt.
  const cached = baseRev === 0 ? EMPTY : options.measure === true ? undefined : ctx.history.get(cacheKey);
  const keys: Uint8Array[] = cached === undefined ? [checkpointKey(stream, baseRev)] : [];
  for (let r = baseRev + 1; r < rev; r++) keys.push(revKey(stream, r));
  const values = await readMany(reader, keys);
  let base = cached;
  let checkpointBytes = 0;
  let layout: PageLayout | undefined;
  let partial = false;
  if (base === undefined) {
    const key = keys[0] as Uint8Array;
    const bytes = values[0];
    if (bytes === undefined) throw corrupt(key, baseRev === h.origin ? 'the checkpoint at the origin is missing' : 'checkpoint is missing', stream);
    const read = await readCheckpoint(reader, key, bytes, stream, baseRev, { path: options.path, layout: options.measure === true });
    ({ layout, partial } = read);
    base = read.record.state;
    if (!partial) ctx.history.set(cacheKey, base);
    checkpointBytes = read.bytes;
  }
  const offset = cached === undefined ? 1 : 0;
  const records: RevisionRecord[] = [];
  for (let r = baseRev + 1; r < rev; r++) {
    const i = r - baseRev - 1 + offset;
    records.push(verifiedRevision(keys[i] as Uint8Array, values[i], stream, r));
  }
  if (last !== null && baseRev < rev) records.push(last);
  const tail = await withPatches(reader, stream, baseRev, records);
  // A partial state answers `options.path` only: the patches that do not reach it change nothing there.
  const path = options.path;
  const tree = applyTail(stream, baseRev, base, partial && path !== undefined ? tail.filter((record) => reaches(record.patch, path)) : tail);
  const problem = stateProblem(stream, tree);
  if (problem !== null) throw corrupt(revKey(stream, rev), `replay gives an invalid state: ${problem}`, stream);
  const debt: CheckpointDebt = { base: baseRev, checkpointBytes, tailBytes: 0, tailCount: tail.length };
  if (options.measure === true) debt.tailBytes = tail.reduce((sum, record) => sum + encodeValue(record.patch).byteLength, 0);
  if (layout !== undefined) {
    debt.layout = layout;
    debt.tail = tail.reduce<TailPatch | null>((prev, record) => ({ patch: record.patch, prev }), null);
  }
  return { tree, debt };
}

/** Whether merge patch `patch` can change the value at `path` (it names the path, a prefix of it replaced, or more below it). */
function reaches(patch: JsonObject, path: readonly PatchPathStep[]): boolean {
  let at: JsonValue = patch;
  for (const step of path) {
    if (!isJsonObject(at) || step.kind !== 'key') return true;
    if (!hasOwn(at, step.key)) return false;
    at = at[step.key] as JsonValue;
  }
  return true;
}

/**
 * One state tree over `base` with the tail's patches applied: each stored patch (frozen as
 * decoded: no defensive copy) costs what it changes; the plain state, when asked for, builds
 * each changed container once.
 * @throws STORE_CORRUPT naming the first revision-index record whose patch does not apply
 */
function applyTail(stream: StreamId, baseRev: number, base: JsonObject, tail: readonly PatchedRevision[]): StateTree {
  let tree = StateTree.of(base);
  tail.forEach((record, i) => {
    try {
      tree = tree.apply(record.patch, { frozenPatch: true });
    } catch (err) {
      throw corrupt(revKey(stream, baseRev + 1 + i), `stored patch does not apply: ${(err as Error).message}`, stream, err);
    }
  });
  return tree;
}
