/**
 * Which owner selections a caller may use, for the state API and `/mcp` alike (server README
 * "State API"): a selected `session` must be a session the caller owns (another user's answers
 * 404 as if it did not exist); a session whose state retention deleted answers 410. With API keys
 * configured, `global` and `cwd` are refused: they are shared by every user of the store, so
 * serving them would break per-user isolation. The store's owner (no keys, or the server token)
 * may select any owner and any agent session id.
 */
import { StateflowError } from '@stateflow/core';
import { SESSION_ID_PATTERN } from '@stateflow/slates';
import type { Selection } from '@stateflow/tools';
import type { ServerContext } from './server-context.js';

/** Who calls: the authenticated user, and whether it is the store's owner. */
export interface Caller {
  user: string;
  admin: boolean;
}

/**
 * Check the selection against the caller; returns the ladder session id it selects (whose
 * record guards patches, see {@link sessionPrecondition}), if any.
 * @throws INPUT_INVALID global/cwd with keys; SESSION_NOT_FOUND; SESSION_CLOSED for a session
 *   whose state retention deleted.
 */
export async function authorizeSelection(context: ServerContext, caller: Caller, selection: Selection): Promise<string | undefined> {
  if (!caller.admin && (selection.global !== undefined || selection.cwd !== undefined)) {
    throw new StateflowError(
      'INPUT_INVALID',
      'With API keys configured the state API serves only your sessions: global and cwd are shared by every user. Select {"session": "<your session id>"}',
      { field: 'selection' },
    );
  }
  const id = selection.session;
  if (id === undefined) return undefined;
  // The store's owner may use any agent session id; ladder-session ids are always checked.
  if (caller.admin && !(typeof id === 'string' && SESSION_ID_PATTERN.test(id))) return undefined;
  const record = await context.sessions.get(String(id), caller.user);
  if (record.purgedAt !== undefined) {
    throw new StateflowError(
      'SESSION_CLOSED',
      `Session "${record.id}" is ${record.status} and its state was deleted by the retention policy at ${record.purgedAt}`,
      { session: record.id, status: record.status },
    );
  }
  return record.id;
}

/**
 * The `precondition` of a tools runtime patching ladder session `session` (or nothing): the
 * session record's revision guards the publication itself, so a patch can never land after a
 * concurrent close (checking the status first and publishing later could).
 */
export function sessionPrecondition(context: ServerContext, caller: Caller, session: string | undefined): { precondition?: () => Promise<Record<string, number>> } {
  if (session === undefined) return {};
  return { precondition: () => context.sessions.writeGuard(session, caller.user) };
}
