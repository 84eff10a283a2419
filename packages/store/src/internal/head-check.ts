/**
 * The head cross-check (README "Opening"): before a stream's current state is first used, its
 * head record must agree with the log — the latest seq-index entry and the transition at that
 * seq. A head that disagrees fails the stream closed instead of serving a wrong current state.
 */
import type { StreamId } from '../types.js';
import { Family, headKey, logKey, parseKey, streamRange } from './keys.js';
import { corrupt, decodeCount, decodeLog } from './records.js';
import type { HeadRecord } from './records.js';
import { headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';

/**
 * Fail closed when `stream`'s head record disagrees with the log: the latest seq-index entry
 * of the stream (one reverse seek; the seq index survives compaction) must be the head's
 * `seq` → `rev`, and the transition at that seq must hold that revision of the stream (one
 * point read). Marks the stream broken on a mismatch.
 * @throws STORE_CORRUPT naming the head key
 */
export async function verifyHead(ctx: StoreContext, stream: StreamId, h: HeadRecord): Promise<void> {
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
    const record = bytes === undefined ? null : decodeLog(logKey(h.seq), bytes, h.seq, { stream, verifyHash: false });
    if (!record?.changes.some((c) => c.stream === stream && c.rev === h.rev)) {
      problem = `head says revision ${h.rev} at seq ${h.seq}, but transition ${h.seq} does not hold that revision`;
    }
  }
  if (problem === null || headOf(ctx, stream) !== h) return;
  const err = corrupt(headKey(stream), problem, stream);
  ctx.broken.set(stream, err);
  throw err;
}
