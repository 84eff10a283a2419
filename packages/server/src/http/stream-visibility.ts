/**
 * Which streams a caller may see through the store API and the watch stream (server README
 * "Users and keys"). The store's owner — the single local user of a server without API keys, or
 * a request carrying the server token — sees every stream. An API-key user sees only the streams
 * of ladder sessions it owns: `ladder-session:<id>`, `slate:<ladder>:<id>` and the agent state
 * `session:<id>`. Every other stream (global, cwd, other users' sessions) does not exist for it,
 * exactly as another user's session does not exist in the sessions API. The shape declarations
 * (`stateflow:shapes`, store README "Shapes") are seen by every user: a reader needs them to
 * read its own streams in a shape; writing them stays the owner's.
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { ShownTransition } from '@stateflow/http-contract';
import { DECLARATION_STREAMS } from '@stateflow/store';
import type { Transition } from '@stateflow/store';
import { SESSION_ID_PATTERN, SESSION_META_PREFIX } from '@stateflow/slates';
import type { ServerContext } from './server-context.js';

/** What one caller may see; ownership answers are cached for the caller's request or watch. */
export interface StreamVisibility {
  /** Whether the caller sees every stream (no filtering needed). */
  readonly all: boolean;
  /** Whether the caller may see `stream`. */
  canSee(stream: string): Promise<boolean>;
  /**
   * The transition as the caller may see it: only its visible changes, or `null` when it has
   * none. Hashes are kept only when nothing was removed (a filtered body would not verify).
   */
  view(transition: Transition): Promise<ShownTransition | null>;
}

/** The visibility of `caller.user` (`caller.admin`: the store's owner), e.g. of a request. */
export function streamVisibility(context: ServerContext, caller: { user: string; admin: boolean }): StreamVisibility {
  const { user } = caller;
  if (caller.admin) {
    return { all: true, canSee: async () => true, view: async (transition) => transition };
  }
  const owned = new Map<string, Promise<boolean>>();
  const ownsSession = (id: string): Promise<boolean> => {
    let answer = owned.get(id);
    if (answer === undefined) {
      answer = context.sessions.get(id, user).then(
        () => true,
        (err: unknown) => {
          if (isStateflowError(err, 'SESSION_NOT_FOUND')) return false;
          throw err;
        },
      );
      owned.set(id, answer);
    }
    return answer;
  };
  const canSee = async (stream: string): Promise<boolean> => {
    if (stream === DECLARATION_STREAMS.shapes) return true;
    const id = sessionOf(stream);
    return id !== null && SESSION_ID_PATTERN.test(id) && (await ownsSession(id));
  };
  return {
    all: false,
    canSee,
    async view(transition) {
      const changes = [];
      for (const change of transition.changes) if (await canSee(change.stream)) changes.push(change);
      if (changes.length === 0) return null;
      if (changes.length === transition.changes.length) return transition;
      const { prevHash: _prev, hash: _hash, ...rest } = transition;
      return { ...rest, changes };
    },
  };
}

/** The ladder session id a stream belongs to, or `null`. */
function sessionOf(stream: string): string | null {
  if (stream.startsWith(SESSION_META_PREFIX)) return stream.slice(SESSION_META_PREFIX.length);
  if (stream.startsWith('session:')) return stream.slice('session:'.length);
  if (stream.startsWith('slate:')) return stream.slice(stream.lastIndexOf(':') + 1);
  return null;
}

/** NOT_FOUND for a stream the caller may not see (another user's, or a shared owner with API keys). */
export function streamNotServed(stream: string): StateflowError<'NOT_FOUND'> {
  return new StateflowError('NOT_FOUND', `Stream ${stream} is not served to you: with API keys, the store API serves only the streams of your own ladder sessions.`, {
    stream,
  });
}

/**
 * Check that `caller` may see every one of `streams`.
 * @throws NOT_FOUND for the first it may not see (reported as a stream that is not served).
 */
export async function assertStreamsVisible(context: ServerContext, caller: { user: string; admin: boolean }, streams: readonly string[]): Promise<void> {
  const access = streamVisibility(context, caller);
  for (const stream of streams) if (!(await access.canSee(stream))) throw streamNotServed(stream);
}

/**
 * A write's result as `caller` may see it (server README "Idempotency ids"): a `duplicate`
 * answers the transition first accepted with its principal's id, shown as the log shows one —
 * only the changes of streams the caller sees, and without hashes and meta when some were left
 * out. Every other result is the caller's own write, answered as it is.
 */
export async function shownWriteResult<R extends { status: string }>(context: ServerContext, caller: { user: string; admin: boolean }, result: R): Promise<R> {
  if (caller.admin || result.status !== 'duplicate') return result;
  const transition = (result as unknown as { transition: { changes: { stream: string }[]; prevHash?: string; hash?: string; meta?: unknown } }).transition;
  const access = streamVisibility(context, caller);
  const changes = [];
  for (const change of transition.changes) if (await access.canSee(change.stream)) changes.push(change);
  if (changes.length === transition.changes.length) return result;
  const { prevHash: _prev, hash: _hash, meta: _meta, ...rest } = transition;
  return { ...result, transition: { ...rest, changes } };
}
