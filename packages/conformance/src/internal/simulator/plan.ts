/**
 * The seeded plan of one simulation: every choice the simulator makes — which fault a seam call
 * meets, how many event-loop turns it waits (the interleaving of concurrent writers), which
 * operation a writer runs next, what a restart loses — is drawn from one PRNG, in the order the
 * choices are made. The simulation is single-threaded and touches no clock, file or socket, so
 * the same seed makes the same choices in the same order: a run replays exactly from its seed.
 */

/** What a read of the seam (get, iterate, a snapshot, beginWrite) meets. */
export type ReadFault = 'pass' | 'fail' | 'crash';

/**
 * What a commit (a write session's `commit`, or `commitIf`) meets: `fail-before` — refused, nothing
 * applied; `applied-unknown` — applied, but the caller gets an error (LevelDB: the write reached
 * the log and its sync failed; PostgreSQL: the acknowledgement of the COMMIT was lost,
 * FoundationDB's `commit_unknown_result`); `lost-unknown` — not applied, and the caller cannot
 * tell (PostgreSQL only); `crash-before` / `crash-after` — the process dies before the commit
 * reaches storage, or after it did and before it sees the answer.
 */
export type CommitFault = 'pass' | 'fail-before' | 'applied-unknown' | 'lost-unknown' | 'crash-before' | 'crash-after';

/** Seeded choices (over an injected PRNG returning numbers in [0, 1)). */
export class Plan {
  readonly #random: () => number;
  /** Probability that a seam call meets a fault at all (drawn per seed). */
  readonly faultRate: number;
  /** Faults are off while false (the final clean close and the checks). */
  faults = true;
  /** Crashes are off once the seed used its budget of them, so that every run ends. */
  crashesLeft: number;

  constructor(random: () => number, options: { maxCrashes: number }) {
    this.#random = random;
    this.faultRate = this.pick([0, 0.004, 0.015, 0.04]);
    this.crashesLeft = options.maxCrashes;
  }

  /** A number in [0, 1). */
  next(): number {
    return this.#random();
  }

  /** An integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#random() * (hi - lo + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#random() < p;
  }

  /** One element of `items` (non-empty). */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }

  /** One element by weight: `[[item, weight], …]`. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let at = this.#random() * total;
    for (const [item, w] of items) {
      at -= w;
      if (at < 0) return item;
    }
    return (items.at(-1) as readonly [T, number])[0];
  }

  /** Event-loop turns a seam call waits before it runs: how concurrent writers interleave. */
  turns(): number {
    return this.weighted([[0, 5], [1, 3], [2, 1], [4, 1]]);
  }

  /** The fault a read meets. */
  read(): ReadFault {
    if (!this.faults || !this.chance(this.faultRate)) return 'pass';
    return this.#crash() ? 'crash' : 'fail';
  }

  /** The fault a commit meets; `unknownNotApplied`: whether the shape can lose a commit unseen. */
  commit(shape: { lostUnknown: boolean }): CommitFault {
    if (!this.faults || !this.chance(this.faultRate * 3)) return 'pass';
    if (this.#crash()) return this.chance(0.5) ? 'crash-before' : 'crash-after';
    const kinds: CommitFault[] = shape.lostUnknown ? ['fail-before', 'applied-unknown', 'lost-unknown'] : ['fail-before', 'applied-unknown'];
    return this.pick(kinds);
  }

  #crash(): boolean {
    if (this.crashesLeft <= 0 || !this.chance(0.4)) return false;
    this.crashesLeft--;
    return true;
  }
}
