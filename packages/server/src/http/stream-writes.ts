/**
 * Which streams a caller may write through the store API — publish, publish-many, fork, merge,
 * revert, compact (server README "Users and keys", DESIGN.md "Access is declared"). The store's
 * owner — no API keys, or the server token — writes any stream. An API-key user writes only the
 * agent state `session:<id>` of a ladder session it owns and that is not closed or expired: a
 * session's record (`ladder-session:<id>`: owner, status, a paused call's recorded outputs) and
 * its slates (`slate:<ladder>:<id>`) are written by the ladder runtime alone, so no key holder
 * can hand a session to another user, reopen a closed one, or forge what a call recorded.
 * Streams the caller may not see answer as not found, exactly as reads do.
 */
import { StateflowError } from '@stateflow/core';
import type { ServerContext } from './server-context.js';
import type { Caller } from './selection-access.js';
import { streamNotServed, streamVisibility } from './stream-visibility.js';

const AGENT_STATE_PREFIX = 'session:';

/**
 * Check that `caller` may write every one of `streams`; returns the CAS guards of the sessions
 * written (`{ "ladder-session:<id>": <record revision> }`, for a publication's `expected`: a close
 * that lands first makes the write conflict instead of landing after it). The owner gets `{}`.
 * @throws NOT_FOUND `{ stream }` for a stream the caller may not see; FORBIDDEN
 *   `{ stream, reason: 'runtime-stream' }` for a session record or slate stream of its own;
 *   SESSION_CLOSED for the agent state of a closed or expired session.
 */
export async function authorizeWrites(context: ServerContext, caller: Caller, streams: readonly string[]): Promise<Record<string, number>> {
  if (caller.admin) return {};
  const visibility = streamVisibility(context, caller);
  const guards: Record<string, number> = {};
  for (const stream of new Set(streams)) {
    if (!(await visibility.canSee(stream))) throw streamNotServed(stream);
    if (!stream.startsWith(AGENT_STATE_PREFIX)) {
      throw new StateflowError(
        'FORBIDDEN',
        `Stream ${stream} is written by the ladder runtime only: with an API key you may write the agent state session:<id> of your own sessions; use the sessions API and chat/completions for the rest.`,
        { stream, reason: 'runtime-stream' },
      );
    }
    Object.assign(guards, await context.sessions.writeGuard(stream.slice(AGENT_STATE_PREFIX.length), caller.user));
  }
  return guards;
}
