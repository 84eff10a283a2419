/**
 * Which streams a caller of the history endpoints may see. The single local user (no API keys)
 * sees every stream. With API keys a caller sees only its own ladder sessions' streams — the
 * session record (`ladder-session:<id>`), its slates (`slate:<ladder>:<id>`) and its agent state
 * (`session:<id>`) — as the state API does: `global` and `cwd:*` are shared by every user of the
 * store, so serving them would break per-user isolation.
 */
import { StateflowError } from '@stateflow/core';
import { agentSessionStream, sessionMetaStream, sessionSlateStream } from '@stateflow/slates';
import type { ServerContext } from '../server-context.js';

/** A caller's view of the store: `all`, or an explicit set of stream ids. */
export type Visibility = { all: true } | { all: false; streams: ReadonlySet<string> };

/** The streams `user` may see (one pass over the user's sessions with keys; nothing without). */
export async function visibilityOf(context: ServerContext, user: string): Promise<Visibility> {
  if (context.keys === null) return { all: true };
  const streams = new Set<string>();
  for (const record of await context.sessions.list(user)) {
    streams.add(sessionMetaStream(record.id));
    streams.add(sessionSlateStream(record.ladder, record.id));
    streams.add(agentSessionStream(record.id));
  }
  return { all: false, streams };
}

/** True when `stream` is visible. */
export function canSee(visibility: Visibility, stream: string): boolean {
  return visibility.all || visibility.streams.has(stream);
}

/**
 * Check that `stream` is visible; an invisible stream is reported exactly like one without
 * history, so a caller cannot probe other users' stream ids.
 * @throws NOT_FOUND
 */
export function assertVisible(visibility: Visibility, stream: string): void {
  if (!canSee(visibility, stream)) throw new StateflowError('NOT_FOUND', `No stream ${JSON.stringify(stream)} is visible to you`);
}
