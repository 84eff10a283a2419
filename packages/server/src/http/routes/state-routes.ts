/**
 * The state API for agents that do not speak MCP (server README "State API"): `POST /v1/state/read` and
 * `POST /v1/state/patch` take the `read_state` / `patch_state` tool input plus a `selection`
 * and answer exactly the tool's output; errors go through the status table.
 *
 * Ownership: a selected `session` must be a session the caller owns (another user's answers 404
 * as if it did not exist); patching a closed or expired session answers 410. With API keys
 * configured, `global` and `cwd` are rejected: they are shared by every user of the store, so
 * serving them would break per-user isolation. The single local user may select them.
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { SESSION_ID_PATTERN } from '@stateflow/slates';
import { createRuntime } from '@stateflow/tools';
import type { Selection } from '@stateflow/tools';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context.js';

/** Register the state API routes on `app`. */
export function registerStateRoutes(app: FastifyInstance, context: ServerContext): void {
  app.post<{ Body: unknown }>('/v1/state/read', async (request) => {
    const { selection, input } = split(request.body);
    await authorizeSelection(context, request.user, selection);
    return createRuntime({ store: context.store, selection }).readState(input);
  });

  app.post<{ Body: unknown }>('/v1/state/patch', async (request) => {
    const { selection, input } = split(request.body);
    const session = await authorizeSelection(context, request.user, selection);
    // patch_state queues itself per store (@stateflow/tools): concurrent patches never conflict.
    // A ladder session's record revision guards the publication itself, so a patch can never
    // land after a concurrent close (checking the status first and publishing later could).
    const precondition = session === undefined ? undefined : () => context.sessions.writeGuard(session, request.user);
    return createRuntime({ store: context.store, selection, ...(precondition === undefined ? {} : { precondition }) }).patchState(input);
  });
}

/** Separate the HTTP-only `selection` member from the tool input. */
function split(body: unknown): { selection: Selection; input: JsonObject } {
  if (!isJsonObject(body)) {
    throw new StateflowError('INPUT_INVALID', 'Body must be a JSON object: the tool input plus "selection"', { field: 'body' });
  }
  const { selection, ...input } = body;
  if (!isJsonObject(selection)) {
    throw new StateflowError('INPUT_INVALID', 'Body needs "selection": {"session": "<id>", "mode": "active"} (or global / cwd)', {
      field: 'selection',
    });
  }
  return { selection: selection as unknown as Selection, input };
}

/**
 * Check the selection against the caller; returns the ladder session id it selects (whose
 * record guards patches), if any.
 * @throws INPUT_INVALID global/cwd with keys; SESSION_NOT_FOUND; SESSION_CLOSED for a session
 *   whose state retention deleted.
 */
async function authorizeSelection(context: ServerContext, user: string, selection: Selection): Promise<string | undefined> {
  if (context.keys !== null && (selection.global !== undefined || selection.cwd !== undefined)) {
    throw new StateflowError(
      'INPUT_INVALID',
      'With API keys configured the state API serves only your sessions: global and cwd are shared by every user. Select {"session": "<your session id>"}',
      { field: 'selection' },
    );
  }
  const id = selection.session;
  if (id === undefined) return undefined;
  // The single local user may use any agent session id; ladder-session ids are always checked.
  if (context.keys === null && !(typeof id === 'string' && SESSION_ID_PATTERN.test(id))) return undefined;
  const record = await context.sessions.get(String(id), user);
  if (record.purgedAt !== undefined) {
    throw new StateflowError(
      'SESSION_CLOSED',
      `Session "${record.id}" is ${record.status} and its state was deleted by the retention policy at ${record.purgedAt}`,
      { session: record.id, status: record.status },
    );
  }
  return record.id;
}
