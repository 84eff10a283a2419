/**
 * Resolving the `{author}/{ladder}` of a route to a served ladder, and a session id to one of
 * the caller's sessions of that ladder.
 */
import { StateflowError } from '@stateflow/core';
import { isLocalLadder, sessionSlateStream } from '@stateflow/slates';
import type { SessionRecord } from '@stateflow/slates';
import type { StreamHead } from '@stateflow/store';
import type { LadderEntry } from '../ladder-catalog.js';
import type { ServerContext } from '../server-context.js';

/** Route parameters naming a ladder. */
export interface LadderParams {
  author: string;
  ladder: string;
}

/** Route parameters naming a session of a ladder. */
export interface SessionParams extends LadderParams {
  id: string;
}

/**
 * The served ladder `@author/name` of the route (`author` may carry its `@`).
 *
 * A `local/` ladder keeps one slate stream for the whole store (seeds/ladr-stateful-sessions.txt:
 * local ladders "run in the local runtime" without the platform session API). With API keys the
 * server has several users, and "there is no shared state across users", so local ladders are
 * refused for every user; without keys the one local user runs them.
 * @throws NOT_FOUND when no such ladder is served (absent, or rejected at start); FORBIDDEN for a
 *   `local/` ladder when API keys are configured.
 */
export function servedLadder(context: ServerContext, params: LadderParams): LadderEntry {
  const id = `@${params.author.replace(/^@/, '')}/${params.ladder}`;
  const entry = context.catalog.ladders.get(id);
  if (entry === undefined) {
    const dir = context.catalog.dir;
    const why =
      dir === null
        ? 'this server serves no ladders: start it with --ladders DIR, a directory of DIR/<author>/<name>.yaml files'
        : `no valid ${id.slice(1)}.yaml in the server's ladders directory${context.catalog.ladders.size === 0 ? '' : `; served: ${[...context.catalog.ladders.keys()].sort().join(', ')}`}`;
    throw new StateflowError('NOT_FOUND', `Ladder ${id} is not served: ${why}`, { ladder: id });
  }
  if (context.keys !== null && isLocalLadder(id)) {
    const shared = [...context.catalog.ladders.keys()].filter((other) => !isLocalLadder(other)).sort();
    throw new StateflowError(
      'FORBIDDEN',
      `${id} is a local ladder: its slates are one stream shared by everyone who calls it, and this server has API keys (several users), ` +
        `so it is refused. Serve the ladder under an author namespace and call it with X-Session-Id on a session of your own` +
        `${shared.length === 0 ? '' : ` (served: ${shared.join(', ')})`}, or run it with \`stateflow ladder run\` on your own store.`,
      { ladder: id, reason: 'local-ladder' },
    );
  }
  return entry;
}

/**
 * Check that `record` belongs to `ladder`; a session of another ladder is reported exactly like
 * an unknown one.
 * @throws SESSION_NOT_FOUND
 */
export function assertSessionOfLadder(record: SessionRecord, ladder: string): SessionRecord {
  if (record.ladder !== ladder) {
    throw new StateflowError('SESSION_NOT_FOUND', `Session "${record.id}" not found`, { session: record.id });
  }
  return record;
}

/**
 * The caller's session `params.id` of the route's ladder (expiry and retention applied).
 * @throws NOT_FOUND unknown ladder; SESSION_NOT_FOUND unknown, foreign or other-ladder session.
 */
export async function ownedSession(
  context: ServerContext,
  user: string,
  params: SessionParams,
): Promise<{ entry: LadderEntry; record: SessionRecord }> {
  const entry = servedLadder(context, params);
  const record = assertSessionOfLadder(await context.sessions.get(params.id, user), entry.id);
  return { entry, record };
}

/**
 * The caller's session `params.id` with its slate stream and that stream's head, for reading the
 * slates.
 * @throws as {@link ownedSession}; SESSION_CLOSED when retention has deleted the slates.
 */
export async function ownedSlates(
  context: ServerContext,
  user: string,
  params: SessionParams,
): Promise<{ entry: LadderEntry; record: SessionRecord; stream: string; head: StreamHead }> {
  const { entry, record } = await ownedSession(context, user, params);
  if (record.purgedAt !== undefined) {
    throw new StateflowError(
      'SESSION_CLOSED',
      `Session "${record.id}" is ${record.status} and its slates were deleted by the retention policy at ${record.purgedAt}`,
      { session: record.id, status: record.status },
    );
  }
  const stream = sessionSlateStream(entry.id, record.id);
  return { entry, record, stream, head: await context.store.head(stream) };
}
