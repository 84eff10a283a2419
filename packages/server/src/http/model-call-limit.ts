/**
 * Per-key limit on model calls running at once (server README "Limits"): a chat/completions call
 * holds one of its key's slots from the moment it is dispatched until the ladder call ends —
 * not until the client leaves, since a call goes on after its client disconnected. A call over
 * the limit is refused before anything runs, 429 with `Retry-After`, which OpenAI clients honour.
 * Only API-key calls count; the store's owner is not limited.
 */
import { StateflowError } from '@stateflow/core';

/** What a refused call's `Retry-After` says, in seconds: slots free as calls end, which is not known ahead. */
export const MODEL_CALL_RETRY_AFTER_S = 1;

/** Counts running model calls per API key. */
export class ModelCallLimit {
  readonly #running = new Map<string, number>();

  /** @param max model calls one key may run at once; `0` for no limit. */
  constructor(readonly max: number) {}

  /**
   * Run `call` in one of `keyId`'s slots (`null`: not an API-key call, never limited).
   * @throws RATE_LIMITED `{ limit: 'model-calls', max, retryAfterSeconds }` when the key's
   *   slots are all taken (nothing runs); whatever `call` throws.
   */
  async run<T>(keyId: string | null, call: () => Promise<T>): Promise<T> {
    if (keyId === null || this.max === 0) return call();
    const running = this.#running.get(keyId) ?? 0;
    if (running >= this.max) {
      throw new StateflowError(
        'RATE_LIMITED',
        `This API key already runs ${running} model calls, its limit: retry after ${MODEL_CALL_RETRY_AFTER_S} s, or wait for a call to end.`,
        { limit: 'model-calls', max: this.max, retryAfterSeconds: MODEL_CALL_RETRY_AFTER_S },
      );
    }
    this.#running.set(keyId, running + 1);
    try {
      return await call();
    } finally {
      const left = (this.#running.get(keyId) ?? 1) - 1;
      if (left === 0) this.#running.delete(keyId);
      else this.#running.set(keyId, left);
    }
  }
}
