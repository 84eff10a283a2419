/**
 * One process's storage in the simulation (one incarnation: a restart makes a new one): the
 * storage seam (`@stateflow/store` `Storage`) over the world's database, with the shape of a real
 * backend — LevelDB's (sole writer, synchronous point reads, reopen after a failed write) or
 * PostgreSQL's (shared by processes, `commitIf`, a lost connection's `STORE_UNAVAILABLE` with its
 * `outcome`) — and a fault from the seeded plan at every call: waiting some event-loop turns (the
 * interleaving), failing typed, or crashing the process. A crashed process makes no progress:
 * every call of it from then on waits forever, and the write session it held is ended, as a dead
 * process's file lock or connection is released.
 */
import { StateflowError } from '@stateflow/core';
import type { IterateOptions, Storage, StorageCapabilities, StorageOp, StorageReader, WriteSession } from '@stateflow/store';
import type { SimulationShape } from '../../simulation-shape.js';
import type { Plan } from './plan.js';
import type { World } from './world.js';

const CAPABILITIES: Record<SimulationShape, StorageCapabilities> = {
  leveldb: Object.freeze({ persistent: true, fsync: true, soleWriter: true, reopenAfterFailedWrite: true }),
  postgres: Object.freeze({ persistent: true, fsync: true, soleWriter: false, reopenAfterFailedWrite: false }),
};

const LOCATION = { leveldb: '/sim/leveldb', postgres: 'postgres://sim/store' } as const;

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A process of the simulation as its storage knows it. */
export class Incarnation {
  readonly storage: Storage;
  /** Resolves when the process crashes. */
  readonly dead: Promise<void>;
  #crashed = false;
  #die!: () => void;
  /** Write sessions held and not committing: a crash ends them (a commit under way lands, or not, by itself). */
  readonly #sessions = new Set<WriteSession>();
  readonly #world: World;
  readonly #plan: Plan;
  readonly #shape: SimulationShape;
  /** Whether this incarnation meets the plan's faults (off for an open that failed too often). */
  faults: boolean;

  constructor(world: World, plan: Plan, shape: SimulationShape, options: { faults: boolean }) {
    this.faults = options.faults;
    this.#world = world;
    this.#plan = plan;
    this.#shape = shape;
    this.dead = new Promise<void>((resolve) => (this.#die = resolve));
    this.storage = this.#storage();
  }

  get crashed(): boolean {
    return this.#crashed;
  }

  /** Kill the process: its write session ends, every call it makes from now on waits forever. */
  crash(): void {
    if (this.#crashed) return;
    this.#crashed = true;
    for (const session of this.#sessions) void session.abort();
    this.#sessions.clear();
    this.#die();
  }

  /** The error a failed call gets: a full disk's on LevelDB, a lost connection's on PostgreSQL. */
  #failure(outcome: 'not-sent' | 'unknown'): StateflowError {
    if (this.#shape === 'leveldb') {
      const what = outcome === 'unknown' ? 'the write reached the log; its sync failed' : 'nothing was written';
      return new StateflowError('STORE_IO', `Simulated I/O error (${what})`, { location: LOCATION.leveldb, code: 'EIO' });
    }
    return new StateflowError('STORE_UNAVAILABLE', `Simulated lost connection (outcome ${outcome})`, { url: LOCATION.postgres, outcome });
  }

  /** Wait the plan's turns, then meet its read fault; resolves only while the process lives. */
  async #read(): Promise<void> {
    for (let n = this.#plan.turns(); n > 0; n--) await turn();
    if (this.#crashed) return never();
    const fault = this.faults ? this.#plan.read() : 'pass';
    if (fault === 'crash') this.crash();
    if (this.#crashed) return never();
    if (fault === 'fail') throw this.#failure('not-sent');
  }

  /**
   * `apply` under the plan's commit fault. `apply(hidden)`: `hidden` for a LevelDB write whose
   * sync failed — in the log, seen only after a reopen ({@link World.commit}).
   */
  async #commit<T>(apply: (hidden: boolean) => Promise<T>): Promise<T> {
    for (let n = this.#plan.turns(); n > 0; n--) await turn();
    if (this.#crashed) return never();
    const fault = this.faults ? this.#plan.commit({ lostUnknown: this.#shape === 'postgres' }) : 'pass';
    if (fault === 'crash-before') this.crash();
    if (this.#crashed) return never();
    if (fault === 'fail-before') throw this.#failure('not-sent');
    if (fault === 'lost-unknown') throw this.#failure('unknown');
    const result = await apply(fault === 'applied-unknown' && this.#shape === 'leveldb');
    // The answer takes its own turns: others may see the commit before its writer learns of it.
    for (let n = this.#plan.turns(); n > 0; n--) await turn();
    if (fault === 'crash-after') this.crash();
    if (this.#crashed) return never();
    if (fault === 'applied-unknown') throw this.#failure('unknown');
    return result;
  }

  #reader(read: () => StorageReader): StorageReader {
    return {
      get: async (key) => {
        await this.#read();
        return read().get(key);
      },
      getMany: async (keys) => {
        await this.#read();
        return read().getMany(keys);
      },
      iterate: (options) => this.#iterate(read, options),
    };
  }

  async *#iterate(read: () => StorageReader, options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    await this.#read();
    for await (const entry of read().iterate(options)) {
      if (this.#crashed) await never();
      yield entry;
    }
  }

  #storage(): Storage {
    const world = this.#world;
    const reader = this.#reader(() => world.base);
    const storage: Storage = {
      location: LOCATION[this.#shape],
      capabilities: CAPABILITIES[this.#shape],
      ...reader,
      snapshot: async (read) => {
        await this.#read();
        return world.base.snapshot((snapshot) => read(this.#reader(() => snapshot)));
      },
      beginWrite: () => this.#beginWrite(),
      close: async () => undefined,
    };
    if (this.#shape === 'leveldb') {
      storage.getSync = (key) => {
        if (this.#crashed || (this.faults && this.#plan.faults && this.#plan.chance(this.#plan.faultRate / 4))) throw this.#failure('not-sent');
        const value = world.base.getSync?.(key);
        return value;
      };
    } else {
      storage.commitIf = (expect, ops, options) => this.#commit(() => world.commitIf(expect, ops, options.sync));
    }
    return storage;
  }

  async #beginWrite(): Promise<WriteSession> {
    await this.#read();
    // One write session at a time across the processes: the world's, held until commit or abort.
    const held = await this.#world.base.beginWrite();
    let open = true;
    const session: WriteSession = {
      commit: async (ops: StorageOp[], options: { sync: boolean }) => {
        if (!open) throw new StateflowError('STORE_CLOSED', 'This write session has ended', {});
        try {
          await this.#commit((hidden) => {
            // Handed to storage: a crash from now on no longer ends the session, the commit does.
            this.#sessions.delete(session);
            return this.#world.commit(held, ops, options.sync, hidden);
          });
        } finally {
          open = false;
          this.#sessions.delete(session);
          await held.abort();
        }
      },
      abort: async () => {
        if (!open) return;
        open = false;
        this.#sessions.delete(session);
        await held.abort();
      },
    };
    if (this.#crashed) {
      await held.abort();
      return never();
    }
    this.#sessions.add(session);
    return session;
  }
}
