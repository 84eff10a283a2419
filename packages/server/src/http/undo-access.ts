/**
 * Who may undo whose writes (server README "Undo", DESIGN.md "Access is declared"): the store's
 * owner undoes anyone's; an API-key user only her own — `writer.user` is hers (filled in when
 * left out) — and only on streams she may write: the undo is computed once as a dry run, every
 * stream it would change is authorized as any write is, and then it is published guarded by the
 * heads that dry run read (a stream that moved meanwhile answers CONFLICT).
 */
import { StateflowError } from '@stateflow/core';
import type { UndoInput, UndoResult } from '@stateflow/store';
import type { ServerContext } from './server-context.js';
import type { Caller } from './selection-access.js';
import { authorizeWrites } from './stream-writes.js';

/**
 * Undo `input` as `caller` may.
 * @throws FORBIDDEN `{ user, reason: 'others-writes' }`; what `authorizeWrites` and `store.undo` throw
 */
export async function undoAsCaller(context: ServerContext, caller: Caller, input: UndoInput): Promise<UndoResult> {
  if (caller.admin) return context.store.undo(input);
  const named = input.writer.user;
  if (named !== undefined && named !== caller.user) {
    throw new StateflowError('FORBIDDEN', `With an API key you may undo only your own writes (user ${caller.user}), not ${named}'s; the store's owner may undo anyone's`, { user: named, reason: 'others-writes' });
  }
  const own: UndoInput = { ...input, writer: { ...input.writer, user: caller.user } };
  const preview = await context.store.undo({ ...own, dryRun: true });
  if (preview.status === 'duplicate') return preview;
  const streams = Object.keys(preview.heads);
  const guards = await authorizeWrites(context, caller, streams);
  if (input.dryRun === true) return preview;
  if (streams.length === 0) return context.store.undo(own);
  return context.store.undo({ ...own, streams, expected: { ...preview.heads, ...guards, ...input.expected } });
}
