/**
 * Which owner selections a caller may use, for the state API and `/mcp` alike (server README
 * "State API"): a selected `session` must be a session the caller owns (another user's answers
 * 404 as if it did not exist); patching a closed or expired session answers 410. With API keys
 * configured, `global` and `cwd` are refused: they are shared by every user of the store, so
 * serving them would break per-user isolation. The store's owner (no keys, or the server token)
 * may select any owner and any agent session id.
 */
import { StateflowError } from '@stateflow/core';
import { SESSION_ID_PATTERN, isEnded } from '@stateflow/slates';
import type { Selection } from '@stateflow/tools';
import type { ServerContext } from './server-context.js';

/**
 * Check that `user` may `op` through `selection`.
 * @throws INPUT_INVALID (global/cwd with API keys), SESSION_NOT_FOUND, SESSION_CLOSED (patch).
 */
export async function authorizeSelection(
  context: ServerContext,
  caller: { user: string; admin: boolean },
  selection: Selection,
  op: 'read' | 'patch',
): Promise<void> {
  if (!caller.admin && (selection.global !== undefined || selection.cwd !== undefined)) {
    throw new StateflowError(
      'INPUT_INVALID',
      'With API keys configured the state API serves only your sessions: global and cwd are shared by every user. Select {"session": "<your session id>"}',
      { field: 'selection' },
    );
  }
  const id = selection.session;
  if (id === undefined) return;
  // The store's owner may use any agent session id; ladder-session ids are always checked.
  if (caller.admin && !(typeof id === 'string' && SESSION_ID_PATTERN.test(id))) return;
  const record = await context.sessions.get(String(id), caller.user);
  if (op === 'patch' && isEnded(record.status)) {
    throw new StateflowError('SESSION_CLOSED', `Session "${record.id}" is ${record.status}; its state can be read during retention but not patched`, {
      session: record.id,
      status: record.status,
    });
  }
}
