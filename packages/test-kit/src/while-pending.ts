/**
 * Work that goes on while something long runs: `whilePending(audit, publishOnce)` calls the
 * step again and again until the long operation settles, and says which calls completed before
 * it did — order of completion, not a timing threshold, so a test can show that the long
 * operation did not stop the others (an audit that does not stop writers).
 */

/** What {@link whilePending} returns. */
export interface WhilePending<P, T> {
  /** What `pending` resolved to. */
  value: P;
  /** Results of the steps that completed before `pending` settled, in order. */
  during: T[];
  /** Results of the steps that completed after it (at most one: the one in flight). */
  after: T[];
}

/**
 * Call `step` one call at a time, again and again, until `pending` settles (the call in flight
 * then is awaited too).
 * @returns `pending`'s value and the steps' results split at the moment it settled
 * @throws what `pending` or a step rejects with (a step's rejection stops the loop)
 */
export async function whilePending<P, T>(pending: Promise<P>, step: () => Promise<T>): Promise<WhilePending<P, T>> {
  let settled = false;
  const watched = pending.finally(() => {
    settled = true;
  });
  // Attach now, so that a rejection of `pending` while a step runs is not unhandled.
  watched.catch(() => undefined);
  const during: T[] = [];
  const after: T[] = [];
  while (!settled) {
    const result = await step();
    (settled ? after : during).push(result);
  }
  return { value: await watched, during, after };
}
