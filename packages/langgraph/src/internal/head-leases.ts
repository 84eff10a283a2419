/**
 * The memory behind write fencing (README "Write fencing"): which checkpoints this saver handed
 * out while they were the head of their namespace.
 *
 * A caller that was given the head (a read without `checkpoint_id`, a read by id that found the
 * head, or the config its own `put` returned) and puts a child of it is continuing the thread:
 * that put must still find its parent at the head. A caller that read a past checkpoint by id is
 * travelling in time, and its put branches. The lease is the record of the first kind of read;
 * reading the same checkpoint by id once it is no longer the head releases it.
 *
 * Bounded: the oldest leases are forgotten first (a forgotten lease makes the put a branch, as
 * with fencing off). A LangGraph run needs one lease per namespace it is writing.
 */
import type { StreamId } from '@stateflow/store';

/** Leases kept before the oldest are forgotten. */
const DEFAULT_CAPACITY = 10_000;

/** Checkpoints handed out at the head, per stream. */
export class HeadLeases {
  readonly #leases = new Map<string, true>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = capacity;
  }

  /** `checkpointId` (or, for `undefined`, the empty namespace) was handed out as the head. */
  grant(stream: StreamId, checkpointId: string | undefined): void {
    const key = leaseKey(stream, checkpointId);
    this.#leases.delete(key);
    this.#leases.set(key, true);
    if (this.#leases.size > this.#capacity) this.#leases.delete(this.#leases.keys().next().value as string);
  }

  /** `checkpointId` was read by id while not the head: a put on it is deliberate time travel. */
  release(stream: StreamId, checkpointId: string): void {
    this.#leases.delete(leaseKey(stream, checkpointId));
  }

  /** Whether a put with this parent (`undefined`: a first checkpoint) must find it at the head. */
  holds(stream: StreamId, parentId: string | undefined): boolean {
    return this.#leases.has(leaseKey(stream, parentId));
  }
}

function leaseKey(stream: StreamId, checkpointId: string | undefined): string {
  return `${stream}\u0000${checkpointId ?? ''}`;
}
