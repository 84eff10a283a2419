/**
 * Idle shutdown of a server started in the background (server README "Background servers"):
 * the server counts requests in flight and open watch streams, and once none has been open for
 * the idle period it calls `onIdle` (which stops it). A watch stream keeps the server busy for as
 * long as it is open: a stdio client subscribed to the baseline keeps its server alive.
 */

/** Counts activity and fires once after `idleMs` of none. */
export class IdleTracker {
  #active = 0;
  #timer: NodeJS.Timeout | undefined;
  #fired = false;

  constructor(
    readonly idleMs: number,
    readonly onIdle: () => void,
  ) {
    this.#arm();
  }

  /** Something started (a request, a watch stream); call the returned function when it ends. */
  begin(): () => void {
    this.#active++;
    clearTimeout(this.#timer);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#active--;
      if (this.#active === 0) this.#arm();
    };
  }

  /** Stop the timer for good (the server is closing). */
  stop(): void {
    this.#fired = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    if (this.#fired) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#active > 0 || this.#fired) return;
      this.#fired = true;
      this.onIdle();
    }, this.idleMs);
    this.#timer.unref();
  }
}
