/**
 * Compaction and retention (README "Compaction", "Retention policy"): this module owns moving a
 * stream's origin forward in one batch — a checkpoint at the new origin, older checkpoints and
 * revision-index entries deleted, transitions no retained revision needs replaced by pruned
 * stubs that keep the chain link and the idempotency id — both on request (`Store.compact`) and as the retention
 * policy applied after each accepted transition, and dropping what memory held below the origin.
 * Neither moves an origin past a tagged revision (README "Tags"): a stream's revision at each
 * tag's seq stays retained.
 */
import type { StreamId, Transition } from '../types.js';
import { Family, checkpointKey, headKey, logKey, parseKey, streamRange } from './keys.js';
import { currentOf } from './current-state.js';
import { logRecord, revAtSeq, seqOfRev } from './log-reads.js';
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
 * Compact `stream` to keep its last `keep` revisions (never moving the origin back), under the
 * exclusive lock; `keep` already checked.
 * @throws STORE_CLOSED, STORE_CORRUPT, STORE_IO
 */
export function compactStream(ctx: StoreContext, stream: StreamId, keep: number): Promise<{ origin: number; deleted: number }> {
  return ctx.lock.exclusive(async () => {
    const h = headOf(ctx, stream);
    return compactTo(ctx, stream, await keepingTags(ctx, stream, Math.max(h.origin, h.rev - keep + 1)));
  });
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
    if (target > h.origin) {
      await ctx.lock.exclusive(async () => {
        const now = headOf(ctx, stream);
        const origin = await keepingTags(ctx, stream, Math.floor((now.rev - policy.keepRevisions + 1) / k) * k);
        if (origin > now.origin) await compactTo(ctx, stream, origin);
      });
    }
  }
}

/**
 * `origin`, lowered to the lowest revision of `stream` a tag names that it would drop: the
 * stream's revision at each tag's seq (a revision ≥ 1; rev 0, the empty state, needs no history),
 * its own revision for a tag set on it. Caller holds the exclusive lock.
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

/**
 * Move `stream`'s origin to `origin` in one batch: checkpoint at the origin, delete older
 * checkpoints and revision-index entries, and replace transitions that no retained revision of
 * any stream needs by pruned stubs that keep the chain link. Caller holds the exclusive lock.
 */
function compactTo(ctx: StoreContext, stream: StreamId, origin: number): Promise<{ origin: number; deleted: number }> {
  return withWriteSession(ctx, (session) => compactInSession(ctx, stream, origin, session));
}

async function compactInSession(ctx: StoreContext, stream: StreamId, origin: number, session: SessionCommit): Promise<{ origin: number; deleted: number }> {
  await currentOf(ctx, stream, { exclusive: true }); // cross-checks the head before anything is rewritten
  const h = headOf(ctx, stream);
  if (origin <= h.origin) return { origin: h.origin, deleted: 0 };
  const ops: StorageOp[] = [];
  if ((await ctx.storage.get(checkpointKey(stream, origin))) === undefined) {
    const state = await stateAtUnlocked(ctx, stream, origin, { exclusive: true });
    const seq = origin === h.rev ? h.seq : await seqOfRev(ctx, stream, origin);
    const key = checkpointKey(stream, origin);
    ops.push({ type: 'put', key, value: encodeCheckpoint(key, { rev: origin, seq, state }) });
  }
  for await (const [key] of ctx.storage.iterate(streamRange(Family.checkpoint, stream, 0, origin - 1))) ops.push({ type: 'del', key });
  for (const key of await pagesToSweep(ctx.storage, stream, origin, h.rev)) ops.push({ type: 'del', key });
  const origins = (s: StreamId): number => (s === stream ? origin : headOf(ctx, s).origin);
  for await (const [key, value] of ctx.storage.iterate(streamRange(Family.rev, stream, 0, origin))) {
    ops.push({ type: 'del', key });
    const parsed = parseKey(key);
    const { seq } = decodeRevision(key, value, stream, parsed.family === 'rev' ? parsed.n : -1);
    const record = await logRecord(ctx, seq, stream);
    if (record.pruned || !record.changes.every((c) => c.rev <= origins(c.stream))) continue;
    const stub: PrunedRecord = { pruned: true, seq, changes: record.changes.map((c) => ({ stream: c.stream, rev: c.rev })), prevHash: record.prevHash, hash: record.hash };
    // The id stays, in the stub and its I record: a retry is still a duplicate.
    if (record.id !== undefined) stub.id = record.id;
    ops.push({ type: 'put', key: logKey(seq), value: encodeRecord(stub) });
  }
  const head: HeadRecord = { rev: h.rev, seq: h.seq, origin };
  ops.push({ type: 'put', key: headKey(stream), value: encodeRecord(head) });
  await session(ops, { sync: ctx.settings.durability === 'fsync' && ctx.storage.capabilities.fsync, rewrites: true }, () => {
    // A catch-up may have brought a later head of the stream (another process's) meanwhile.
    const known = ctx.heads.get(stream);
    ctx.heads.set(stream, known !== undefined && known.seq > head.seq ? { ...known, origin: Math.max(known.origin, origin) } : head);
    // Reloaded on next use, so its checkpoint debt counts from the latest checkpoint again.
    ctx.current.delete(stream);
    ctx.debt.delete(stream);
    ctx.history.deleteWhere((key) => key.startsWith(`${stream}\u0000`) && Number(key.slice(stream.length + 1)) < origin);
  });
  return { origin, deleted: origin - h.origin };
}
