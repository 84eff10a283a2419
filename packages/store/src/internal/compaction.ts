/**
 * Compaction and retention (README "Compaction", "Retention policy"): this module owns moving a
 * stream's origin forward in bounded slices, each one atomic batch — a checkpoint at the new origin, older checkpoints and
 * revision-index entries deleted, transitions no retained revision needs replaced by pruned
 * stubs that keep the chain link and the idempotency id — both on request (`Store.compact`) and as the retention
 * policy applied after each accepted transition, and dropping what memory held below the origin.
 * Neither moves an origin past a tagged revision (README "Tags"): a stream's revision at each
 * tag's seq stays retained.
 */
import type { StreamId, Transition } from '../types.js';
import { Family, checkpointKey, headKey, logKey, parseKey, streamRange } from './keys.js';
import { compactedElsewhere, currentOf } from './current-state.js';
import { logEntry, revAtSeq, seqOfRev } from './log-reads.js';
import { outlineLog } from './log-outline.js';
import { DECLARATION_STREAMS } from '../declarations.js';
import { tagsOf } from './tag-declarations.js';
import { stateAtUnlocked } from './state-at.js';
import { pagesToSweep } from './page-reads.js';
import { decodeRevision, encodeCheckpoint, encodeRecord } from './records.js';
import type { HeadRecord, PrunedRecord } from './records.js';
import type { StorageOp } from '../storage.js';
import { headOf } from './store-context.js';
import { withWriteSession } from './write-session.js';
import type { SessionCommit } from './write-session.js';
import type { StoreContext } from './store-context.js';

/**
 * Revisions one compaction slice moves a stream's origin by at most, so that each slice's batch
 * deletes and rewrites a bounded number of keys (README "Retention": the store stays writable).
 */
export const COMPACTION_SLICE = 64;

/** Slices whose preparation went stale (the stream or the store rewritten meanwhile) before one is prepared under the exclusive lock. */
const STALE_SLICES = 3;

/**
 * Compact `stream` to keep its last `keep` revisions (never moving the origin back), in slices
 * of at most {@link COMPACTION_SLICE} revisions: each slice is read under a read lock (publishes
 * go on meanwhile) and committed as one atomic batch under the exclusive lock, which is released
 * between slices. Every slice leaves a consistent store: a crash between two leaves the origin
 * at the last committed one. `keep` already checked.
 * @throws STORE_CLOSED, STORE_CORRUPT, STORE_IO
 */
export function compactStream(ctx: StoreContext, stream: StreamId, keep: number): Promise<{ origin: number; deleted: number }> {
  const h = headOf(ctx, stream);
  return compactInSlices(ctx, stream, Math.max(h.origin, h.rev - keep + 1));
}

/** Move `stream`'s origin towards `target` slice by slice (see {@link compactStream}). */
async function compactInSlices(ctx: StoreContext, stream: StreamId, target: number): Promise<{ origin: number; deleted: number }> {
  const from = headOf(ctx, stream).origin;
  for (let stale = 0; ; ) {
    const prepared = stale < STALE_SLICES ? await prepareUnderReadLock(ctx, stream, target) : undefined;
    if (prepared === 'done') break;
    if (prepared === 'stale') {
      stale += 1;
      continue;
    }
    // Past STALE_SLICES, the slice is prepared inside the write session: no process writes meanwhile.
    const result = await ctx.lock.exclusive(() => commitSlice(ctx, stream, prepared ?? (() => prepareSlice(ctx, stream, target))));
    if (result === 'done') break;
    stale = result === 'stale' ? stale + 1 : 0;
  }
  const origin = headOf(ctx, stream).origin;
  return { origin, deleted: origin - from };
}

/**
 * {@link prepareSlice} under a read lock (publishes here go on), `'stale'` when it failed closed
 * on records another process's compaction removed while it read (storage shared with other
 * writers: {@link compactedElsewhere}); any other failure is damage and is thrown.
 */
async function prepareUnderReadLock(ctx: StoreContext, stream: StreamId, target: number): Promise<Slice | 'done' | 'stale'> {
  const generation = ctx.generation;
  try {
    return await ctx.lock.read(() => prepareSlice(ctx, stream, target));
  } catch (err) {
    if (await compactedElsewhere(ctx, generation, err)) return 'stale';
    throw err;
  }
}

/**
 * Apply the retention policy to the streams a transition changed, at checkpoint boundaries.
 * Best effort: the transition is already accepted; a failure here is retried on the next
 * publish (and an audit reports stored damage).
 */
export async function applyRetention(ctx: StoreContext, t: Transition): Promise<void> {
  try {
    await retain(ctx, t);
  } catch {
    // see above
  }
}

async function retain(ctx: StoreContext, t: Transition): Promise<void> {
  const policy = ctx.settings.retention;
  if (policy === null) return;
  const k = ctx.settings.checkpointInterval;
  for (const { stream } of t.changes) {
    const h = headOf(ctx, stream);
    const target = Math.floor((h.rev - policy.keepRevisions + 1) / k) * k;
    if (target > h.origin) await compactInSlices(ctx, stream, target);
  }
}

/**
 * `origin`, lowered to the lowest revision of `stream` a tag names that it would drop: the
 * stream's revision at each tag's seq (a revision ≥ 1; rev 0, the empty state, needs no history),
 * its own revision for a tag set on it. Caller holds a read lock or the exclusive lock.
 */
async function keepingTags(ctx: StoreContext, stream: StreamId, origin: number): Promise<number> {
  if (stream === DECLARATION_STREAMS.tags || headOf(ctx, DECLARATION_STREAMS.tags).rev === 0) return origin;
  let floor = origin;
  for (const tag of tagsOf(await currentOf(ctx, DECLARATION_STREAMS.tags, { exclusive: true })).values()) {
    const rev = tag.stream === stream ? (tag.rev as number) : await revAtSeq(ctx, stream, tag.seq);
    if (rev >= 1 && rev < floor && rev >= headOf(ctx, stream).origin) floor = rev;
  }
  return floor;
}

/** One prepared slice of a compaction: the batch moving the origin from `from` to `origin`, valid while nothing it read changed. */
interface Slice {
  from: number;
  origin: number;
  /** What the batch was read against: the stream's head seq, the tags' head seq, the store's generation. */
  seq: number;
  tagsSeq: number;
  generation: number;
  ops: StorageOp[];
}

/**
 * The next slice towards `target` (at most {@link COMPACTION_SLICE} revisions, never past a
 * tagged revision), or `'done'`. Caller holds a read lock or the exclusive lock.
 */
async function prepareSlice(ctx: StoreContext, stream: StreamId, target: number): Promise<Slice | 'done'> {
  // What the slice is read against, taken before any read: a write meanwhile makes it stale.
  const against = { seq: headOf(ctx, stream).seq, tagsSeq: headOf(ctx, DECLARATION_STREAMS.tags).seq, generation: ctx.generation };
  await currentOf(ctx, stream, { exclusive: true }); // cross-checks the head before anything is rewritten
  const h = headOf(ctx, stream);
  if (target <= h.origin) return 'done';
  const origin = await keepingTags(ctx, stream, Math.min(target, h.origin + COMPACTION_SLICE));
  return origin <= h.origin ? 'done' : { from: h.origin, origin, ...against, ops: await sliceOps(ctx, stream, origin) };
}

/**
 * The batch moving `stream`'s origin to `origin`: checkpoint at the origin, delete older
 * checkpoints and revision-index entries, and replace transitions that no retained revision of
 * any stream needs by pruned stubs that keep the chain link. Reads only; caller holds a lock.
 */
async function sliceOps(ctx: StoreContext, stream: StreamId, origin: number): Promise<StorageOp[]> {
  const h = headOf(ctx, stream);
  const ops: StorageOp[] = [];
  const originSeq = origin === h.rev ? h.seq : await seqOfRev(ctx, stream, origin);
  if ((await ctx.storage.get(checkpointKey(stream, origin))) === undefined) {
    const state = await stateAtUnlocked(ctx, stream, origin, { exclusive: true });
    const key = checkpointKey(stream, origin);
    ops.push({ type: 'put', key, value: encodeCheckpoint(key, { rev: origin, seq: originSeq, state }) });
  }
  // Seq-index entries of revisions below the origin: a seq before the origin's reads as not
  // retained without them (README "Retention": what stays). Bounded per slice; a store
  // compacted before they went leaves more, deleted by later slices.
  for await (const [key] of ctx.storage.iterate({ ...streamRange(Family.seq, stream, 0, originSeq - 1), limit: 2 * COMPACTION_SLICE })) ops.push({ type: 'del', key });
  for await (const [key] of ctx.storage.iterate(streamRange(Family.checkpoint, stream, 0, origin - 1))) ops.push({ type: 'del', key });
  for (const key of await pagesToSweep(ctx.storage, stream, origin, h.rev)) ops.push({ type: 'del', key });
  const origins = (s: StreamId): number => (s === stream ? origin : headOf(ctx, s).origin);
  for await (const [key, value] of ctx.storage.iterate(streamRange(Family.rev, stream, 0, origin))) {
    ops.push({ type: 'del', key });
    const parsed = parseKey(key);
    const { seq } = decodeRevision(key, value, stream, parsed.family === 'rev' ? parsed.n : -1);
    // The outline is enough: a stub needs no patch.
    const record = await logEntry(ctx.storage, seq, stream, (k, bytes) => outlineLog(k, bytes, seq, stream));
    if (record.pruned || !record.changes.every((c) => c.rev <= origins(c.stream))) continue;
    const stub: PrunedRecord = { pruned: true, seq, changes: record.changes.map((c) => ({ stream: c.stream, rev: c.rev })), prevHash: record.prevHash, hash: record.hash };
    // The id stays, in the stub and its I record: a retry is still a duplicate.
    if (record.id !== undefined) stub.id = record.id;
    ops.push({ type: 'put', key: logKey(seq), value: encodeRecord(stub) });
  }
  return ops;
}

/**
 * Commit a slice in one write session — prepared already, or prepared inside the session
 * (`prepared` a function) — `'stale'` (nothing written) when what it was
 * read against changed meanwhile — a write to the stream or to the tags, another rewrite —
 * so that the batch never deletes what a later write needs. Caller holds the exclusive lock.
 */
function commitSlice(ctx: StoreContext, stream: StreamId, prepared: Slice | (() => Promise<Slice | 'done'>)): Promise<'committed' | 'stale' | 'done'> {
  return withWriteSession(ctx, async (session) => {
    const slice = typeof prepared === 'function' ? await prepared() : prepared;
    if (slice === 'done') return 'done';
    const h = headOf(ctx, stream);
    if (h.seq !== slice.seq || h.origin !== slice.from || headOf(ctx, DECLARATION_STREAMS.tags).seq !== slice.tagsSeq || ctx.generation !== slice.generation) return 'stale';
    const head: HeadRecord = { rev: h.rev, seq: h.seq, origin: slice.origin };
    await session([...slice.ops, { type: 'put', key: headKey(stream), value: encodeRecord(head) }], { sync: ctx.settings.durability === 'fsync' && ctx.storage.capabilities.fsync, rewrites: true }, () => {
      // A catch-up may have brought a later head of the stream (another process's) meanwhile.
      const known = ctx.heads.get(stream);
      ctx.heads.set(stream, known !== undefined && known.seq > head.seq ? { ...known, origin: Math.max(known.origin, slice.origin) } : head);
      // Reloaded on next use, so its checkpoint debt counts from the latest checkpoint again.
      ctx.current.delete(stream);
      ctx.debt.delete(stream);
      ctx.history.deleteWhere((key) => key.startsWith(`${stream}\u0000`) && Number(key.slice(stream.length + 1)) < slice.origin);
    });
    return 'committed';
  });
}
