/**
 * Merge (README "Merge"): this module owns turning a three-way merge of two streams into one
 * transition on the receiving stream — the merge base (`merge-base.ts`), the three states, core's
 * `threeWayMerge`, and the commit with the `merge` meta — read and committed alone under the
 * write lock and in one write session, so the states merged are the ones the transition's
 * basis names.
 */
import { StateflowError, diff, isStateflowError, threeWayMerge } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { MergeBase, MergeInput, MergePlan, MergeResult, StreamId } from '../types.js';
import { currentOf } from './current-state.js';
import { findMergeBase } from './merge-base.js';
import { commit, enforceExpected, storedWithId } from './publication.js';
import { retained } from './replay.js';
import { stateAtUnlocked } from './state-at.js';
import { headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';
import { jsonObjectCopy, stateProblem } from './validate.js';
import { withWriteSession } from './write-session.js';

/**
 * Merge `input.from` into `input.into` (`Store.merge` once its input is checked).
 * @throws MERGE_CONFLICT, MERGE_UNRELATED, HISTORY_NOT_RETAINED, CONFLICT, REVISION_NOT_FOUND,
 *   INPUT_INVALID (resolutions), PATCH_INVALID (invalid-state), STORE_CORRUPT, STORE_IO
 */
export function mergeStreams(ctx: StoreContext, input: MergeInput): Promise<MergeResult> {
  const { from, into, id, principal } = input;
  return ctx.lock.write(() => withWriteSession(ctx, async (session) => {
    if (id !== undefined) {
      const accepted = await storedWithId(ctx, id, principal);
      if (accepted !== undefined) return { status: 'duplicate', transition: accepted };
    }
    enforceExpected({ [into]: input.expected ?? 'any' }, (s) => headOf(ctx, s));
    const fromRev = input.fromRev ?? headOf(ctx, from).rev;
    retained(ctx, from, fromRev);
    const intoRev = headOf(ctx, into).rev;
    const base = await findMergeBase(ctx, from, fromRev, into, intoRev);
    const ours = await currentOf(ctx, into);
    const { merged, conflicts } = threeWayMerge(await baseState(ctx, base, from, into), ours, await stateAtUnlocked(ctx, from, fromRev), {
      ...(input.resolve === undefined ? {} : { resolve: input.resolve }),
      ...(input.prefer === undefined ? {} : { prefer: input.prefer }),
    });
    const problem = stateProblem(into, merged);
    if (problem !== null) {
      throw new StateflowError('PATCH_INVALID', `Merging ${from} into ${into} would leave an invalid state: ${problem}; resolve that path with another value`, { reason: 'invalid-state', at: '' });
    }
    const plan: MergePlan = { from, fromRev, into, intoRev, base, patch: diff(ours, merged), conflicts };
    if (input.dryRun === true) return { ...plan, status: 'preview', transition: null };
    const open = conflicts.filter((c) => c.resolution === undefined);
    if (open.length > 0) throw mergeConflict(plan, open.length);
    if (Object.keys(plan.patch).length === 0) return { ...plan, status: 'noop', transition: null };
    const meta = jsonObjectCopy({ ...input.meta, merge: { from, fromRev, base: { stream: base.stream, rev: base.rev } } }, 'meta');
    const result = await commit(ctx, { changes: { [into]: plan.patch }, expected: { [into]: intoRev }, meta, ...(id === undefined ? {} : { id }), ...(principal === undefined ? {} : { principal }) }, session);
    if (result.status !== 'accepted') throw new Error(`unreachable: a merge with a non-empty patch staged as ${result.status}`);
    return { ...plan, status: 'accepted', transition: result.transition };
  }));
}

/** The base's state, or HISTORY_NOT_RETAINED saying that the merge base is what was compacted. */
async function baseState(ctx: StoreContext, base: MergeBase, from: StreamId, into: StreamId): Promise<JsonObject> {
  try {
    return await stateAtUnlocked(ctx, base.stream, base.rev);
  } catch (err) {
    if (!isStateflowError(err, 'HISTORY_NOT_RETAINED')) throw err;
    throw new StateflowError(
      'HISTORY_NOT_RETAINED',
      `The merge base of ${from} and ${into} is ${base.stream} at revision ${base.rev}, which compaction removed (${base.stream} starts at revision ${err.details.origin}): ` +
        'a three-way merge needs that state; copy one side over the other with fork instead, or publish the change by hand',
      err.details,
      { cause: err },
    );
  }
}

function mergeConflict(plan: MergePlan, open: number): StateflowError<'MERGE_CONFLICT'> {
  const { from, fromRev, into, intoRev, base, conflicts } = plan;
  const paths = conflicts.filter((c) => c.resolution === undefined).map((c) => c.path);
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, … (${paths.length - 5} more)` : '');
  return new StateflowError(
    'MERGE_CONFLICT',
    `Merging ${from} (rev ${fromRev}) into ${into} (rev ${intoRev}) from ${base.stream}@${base.rev} leaves ${open} conflict${open === 1 ? '' : 's'} open (${shown}); nothing was published. ` +
      'Resolve each path (ours, theirs or a value) or prefer a side, and merge again',
    { from, into, fromRev, intoRev, base, conflicts },
  );
}
