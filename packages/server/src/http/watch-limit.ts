/**
 * Caps on open watch streams (server README "Limits"): each open `GET /v1/watch` holds a socket,
 * a store subscription and its buffers (about 10 KB, `bench/RESULTS.md`), and every publish is
 * fanned out to it. So one API key may hold at most `perKey` streams, and the server at most
 * `perServer` (the store's owner counts against the server's cap only). One more answers 429
 * `RATE_LIMITED` with `Retry-After` before the stream opens; a slot frees when a stream ends.
 */
import { StateflowError } from '@stateflow/core';

/** Default cap of open watch streams per API key. */
export const DEFAULT_WATCHES_PER_KEY = 32;
/** Default cap of open watch streams per server (× ~10 KB each: about 20 MiB). */
export const DEFAULT_WATCHES_PER_SERVER = 2_000;
/** What a refused watch's `Retry-After` says, in seconds: slots free as streams end. */
export const WATCH_RETRY_AFTER_S = 1;

/** Counts open watch streams per key and in all. */
export class WatchLimit {
  readonly #perKey = new Map<string, number>();
  #open = 0;

  /**
   * @param perKey streams one API key may hold open (`0`: no per-key cap)
   * @param perServer streams the server holds open in all (`0`: no cap)
   */
  constructor(
    readonly perKey: number,
    readonly perServer: number,
  ) {}

  /** Open watch streams now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Take a slot for a stream of `keyId` (`null`: the store's owner, counted by the server's cap
   * only); returns the function that frees it (once).
   * @throws RATE_LIMITED `{ limit: 'watches' | 'server-watches', max, retryAfterSeconds }` when
   *   the key's or the server's slots are all taken.
   */
  acquire(keyId: string | null): () => void {
    if (this.perServer > 0 && this.#open >= this.perServer) throw refused('server-watches', this.perServer, `The server holds ${this.#open} watch streams, its limit`);
    const held = keyId === null ? 0 : (this.#perKey.get(keyId) ?? 0);
    if (keyId !== null && this.perKey > 0 && held >= this.perKey) throw refused('watches', this.perKey, `This API key holds ${held} watch streams, its limit`);
    this.#open++;
    if (keyId !== null) this.#perKey.set(keyId, held + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.#open--;
      if (keyId === null) return;
      const left = (this.#perKey.get(keyId) ?? 1) - 1;
      if (left === 0) this.#perKey.delete(keyId);
      else this.#perKey.set(keyId, left);
    };
  }
}

function refused(limit: 'watches' | 'server-watches', max: number, what: string): StateflowError<'RATE_LIMITED'> {
  return new StateflowError('RATE_LIMITED', `${what}: close one, or retry after ${WATCH_RETRY_AFTER_S} s.`, { limit, max, retryAfterSeconds: WATCH_RETRY_AFTER_S });
}
