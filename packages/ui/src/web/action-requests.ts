/**
 * The requests behind the guarded actions: the patch each would publish (read from the history
 * diff), and publishing it through the store API with the guard — revert: `expected` = the head
 * the page showed, with the store's revert meta; fork: the new stream must not exist yet. A
 * revert that changes nothing cannot carry the guard in a publication, so it checks the head.
 */
import { ApiError, get, post, query } from './api.js';
import type { DiffResult, JsonObject, PublishResult } from './types.js';

/** An action previewed and waiting for confirmation. */
export type PendingAction = { kind: 'revert'; patch: JsonObject } | { kind: 'fork'; to: string; patch: JsonObject };

/** The patch that takes `stream` from `head` back to revision `rev`. */
export async function revertPatch(stream: string, head: number, rev: number): Promise<JsonObject> {
  return (await get<DiffResult>(`/v1/history/diff${query({ stream, a: head, b: rev })}`)).patch;
}

/** The patch that a fork of `stream` at `rev` to the (new, empty) stream `to` amounts to. */
export async function forkPatch(stream: string, rev: number, to: string): Promise<JsonObject> {
  return (await get<DiffResult>(`/v1/history/diff${query({ stream: to, a: 0, streamB: stream, b: rev })}`)).patch;
}

/**
 * Publish `pending` on `stream` (revision `rev` at the cursor, `head` shown).
 * @throws ApiError `CONFLICT` (409) when the stream is no longer at `head` (revert) or `to` exists (fork).
 */
export async function publishAction(stream: string, rev: number, head: number, pending: PendingAction): Promise<Pick<PublishResult, 'status' | 'transition'>> {
  if (pending.kind === 'fork') return post<PublishResult>('/v1/store/fork', { from: stream, to: pending.to, at: rev, expected: 'none' });
  if (Object.keys(pending.patch).length === 0) {
    const now = await get<{ rev: number }>(`/v1/store/head${query({ stream })}`);
    if (now.rev !== head) throw new ApiError(409, 'CONFLICT', `${stream} is at revision ${now.rev}, not ${head}`);
    return { status: 'noop', transition: null };
  }
  return post<PublishResult>('/v1/store/publish', {
    changes: { [stream]: pending.patch },
    expected: { [stream]: head },
    meta: { revert: { stream, rev } },
  });
}

/** What the page says after a failed guarded publication: a conflict explained (nothing was published), any other error as is. */
export function failureText(err: unknown, head: number): string {
  return err instanceof ApiError && err.code === 'CONFLICT'
    ? `Conflict: ${err.message}. The stream changed since this page showed revision ${head}; nothing was published. Reload the stream to see its new head.`
    : (err as Error).message;
}
