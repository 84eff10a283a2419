/**
 * Fork and revert (DESIGN.md "Store model"; README "Decisions": `fork`, `revert`): this module
 * owns turning a historical state into one new transition — a fork sets a stream to another
 * stream's state at a revision, a revert sets a stream back to one of its own revisions — each
 * read and committed alone under the write lock, with the `fork`/`revert` meta recorded.
 */
import { diff } from '@stateflow/core';
import type { ExpectedRevision, PublishInput, PublishResult, StreamId } from '../types.js';
import { currentOf } from './current-state.js';
import { stateAtUnlocked } from './state-at.js';
import { NOOP, commit, enforceExpected, storedWithId } from './publication.js';
import { headOf } from './store-context.js';
import { withWriteSession } from './write-session.js';
import type { StoreContext } from './store-context.js';
import { jsonObjectCopy } from './validate.js';

/**
 * Set `to` to the state of `from` at revision `at` (default: `from`'s head), guarded by
 * `expected` on `to`; arguments already checked. Check order: the idempotency id (→ `duplicate`),
 * the source revision, `expected`.
 * @throws CONFLICT, REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT, STORE_IO
 */
export function forkStream(
  ctx: StoreContext,
  from: StreamId,
  to: StreamId,
  atOption: number | undefined,
  expected: ExpectedRevision,
  owned: { id?: string; principal?: string },
): Promise<PublishResult> {
  const { id, principal } = owned;
  return ctx.lock.write(() => withWriteSession(ctx, async (session) => {
    // The id first, as in publish: a retry of a fork that landed finds `to` no longer empty (a
    // CONFLICT against `'none'`) or already equal to the source (a noop), yet must answer with
    // the original.
    if (id !== undefined) {
      const accepted = await storedWithId(ctx, id, principal);
      if (accepted !== undefined) return { status: 'duplicate', transition: accepted };
    }
    const at = atOption ?? headOf(ctx, from).rev;
    const source = await stateAtUnlocked(ctx, from, at);
    const target = await currentOf(ctx, to);
    const patch = diff(target, source);
    if (Object.keys(patch).length === 0) {
      enforceExpected({ [to]: expected }, (s) => headOf(ctx, s));
      return NOOP;
    }
    const input: PublishInput = { changes: { [to]: patch }, expected: { [to]: expected }, meta: jsonObjectCopy({ fork: { from, rev: at } }, 'meta') };
    if (id !== undefined) input.id = id;
    if (principal !== undefined) input.principal = principal;
    return commit(ctx, input, session);
  }));
}

/**
 * Set `stream` back to its state at `toRev`, expecting the head it read; arguments already
 * checked.
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED, STORE_CORRUPT, STORE_IO
 */
export function revertStream(ctx: StoreContext, stream: StreamId, toRev: number): Promise<PublishResult> {
  return ctx.lock.write(() => withWriteSession(ctx, async (session) => {
    const h = headOf(ctx, stream);
    const target = await stateAtUnlocked(ctx, stream, toRev);
    const patch = diff(await currentOf(ctx, stream), target);
    if (Object.keys(patch).length === 0) return NOOP;
    return commit(ctx, { changes: { [stream]: patch }, expected: { [stream]: h.rev }, meta: jsonObjectCopy({ revert: { stream, rev: toRev } }, 'meta') }, session);
  }));
}
