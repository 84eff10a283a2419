/**
 * What the simulated machine holds: one memory-level database standing for the disk (LevelDB) or
 * the database server (PostgreSQL), and the ledger of every commit that reached it, in order,
 * each with its `sync` flag. The ledger is the simulator's ground truth. A power loss (an OS
 * crash, or a database server crash with `synchronous_commit = off`) keeps every commit up to
 * the last synced one — a log is written in order, so a synced commit makes the ones before it
 * durable — and a seeded prefix of the unsynced ones after it; the database is then rebuilt from
 * the commits that survived. Nothing here injects faults: `faulty-storage.ts` does, per process.
 */
import { MemoryLevel } from 'memory-level';
import { openLevelStorage, seqOfLogKey } from '@stateflow/store';
import type { Storage, StorageCapabilities, StorageOp, WriteSession } from '@stateflow/store';

/** A commit that reached storage. */
export interface Commit {
  ops: StorageOp[];
  sync: boolean;
  /** The power-loss epoch it was made in (0 until the first power loss). */
  epoch: number;
  /** In the log but not yet in the database: a LevelDB write whose sync failed (see {@link World.commit}). */
  hidden: boolean;
}

/** A commit a power loss took: the log seqs it held, the epoch it was made in, the epoch the loss ended. */
export interface LostCommits {
  epoch: number;
  seqs: number[];
  lostIn: number;
}

const MEMORY: StorageCapabilities = Object.freeze({ persistent: false, fsync: false, soleWriter: true, reopenAfterFailedWrite: false });

const newDatabase = (): MemoryLevel<Uint8Array, Uint8Array> => new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });

/** The Level adapter over a fresh memory-level database holding `commits`, applied in order. */
async function storageOf(commits: readonly Commit[], extra: StorageOp[] = []): Promise<Storage> {
  const storage = await openLevelStorage(newDatabase(), { location: null, capabilities: MEMORY });
  for (const ops of [...commits.map((c) => c.ops), extra]) {
    if (ops.length === 0) continue;
    const session = await storage.beginWrite();
    await session.commit(ops, { sync: false });
  }
  return storage;
}

export class World {
  epoch = 0;
  /** Every commit that reached storage and survived, in order. */
  readonly commits: Commit[] = [];
  /** What each power loss took. */
  readonly lost: LostCommits[] = [];
  /** The database every process's storage writes through (write sessions one at a time). */
  base: Storage;

  private constructor(base: Storage) {
    this.base = base;
  }

  static async create(): Promise<World> {
    return new World(await storageOf([]));
  }

  /** Commits being applied: a power loss waits for them (each lands before it, or not at all). */
  readonly #applying = new Set<Promise<unknown>>();

  #track<T>(apply: Promise<T>): Promise<T> {
    this.#applying.add(apply);
    return apply.finally(() => this.#applying.delete(apply));
  }

  /**
   * Apply `ops` as one commit in `session`, a write session of the base. `hidden`: the commit
   * reached the log but not the database the process reads — LevelDB applies a batch to its
   * memtable only once the log write and its sync succeeded, so a batch whose sync failed is
   * seen only after a reopen recovers it from the log ({@link World.reveal}); it is unsynced.
   */
  commit(session: WriteSession, ops: StorageOp[], sync: boolean, hidden = false): Promise<void> {
    return this.#track(
      (async () => {
        if (hidden) await session.abort();
        else await session.commit(ops, { sync: false });
        this.commits.push({ ops: [...ops], sync: sync && !hidden, epoch: this.epoch, hidden });
      })(),
    );
  }

  /** A reopen's recovery: every hidden commit into the database, in order. */
  async reveal(): Promise<void> {
    for (const commit of this.commits) {
      if (!commit.hidden) continue;
      commit.hidden = false;
      const session = await this.base.beginWrite();
      await session.commit(commit.ops, { sync: false });
    }
  }

  /**
   * As `Storage.commitIf`: apply `ops` when the value at `expect.key` is `expect.value`, in one
   * write session of the base.
   * @returns whether they were applied
   */
  commitIf(expect: { key: Uint8Array; value: Uint8Array | undefined }, ops: StorageOp[], sync: boolean): Promise<boolean> {
    return this.#track(this.#commitIf(expect, ops, sync));
  }

  async #commitIf(expect: { key: Uint8Array; value: Uint8Array | undefined }, ops: StorageOp[], sync: boolean): Promise<boolean> {
    const session = await this.base.beginWrite();
    const value = await this.base.get(expect.key);
    const equal = value === undefined || expect.value === undefined ? value === expect.value : Buffer.compare(value, expect.value) === 0;
    if (!equal) {
      await session.abort();
      return false;
    }
    await session.commit(ops, { sync: false });
    this.commits.push({ ops: [...ops], sync, epoch: this.epoch, hidden: false });
    return true;
  }

  /**
   * A power loss: keep every commit up to the last synced one and the first `keep(n)` of the
   * `n` unsynced ones after it; rebuild the database from them. Call it only once every
   * process's storage is dead (their sessions ended).
   * @returns how many commits it took
   */
  /** Once every commit handed to storage so far has landed (a restarted process sees all of them, as after a real crash). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#applying]);
  }

  async powerLoss(keep: (unsynced: number) => number): Promise<number> {
    await this.settled();
    const lastSynced = this.commits.findLastIndex((c) => c.sync);
    const unsynced = this.commits.length - lastSynced - 1;
    const dropped = this.commits.splice(lastSynced + 1 + keep(unsynced));
    // A commit of an earlier epoch that no synced one followed can be lost too: each is named by its own epoch.
    for (const commit of dropped) {
      const seqs = commit.ops.flatMap((op) => (op.type === 'put' ? [seqOfLogKey(op.key)] : [])).filter((s): s is number => s !== null);
      this.lost.push({ epoch: commit.epoch, seqs, lostIn: this.epoch });
    }
    this.epoch++;
    await this.base.close();
    // The rebuilt database holds every surviving commit, hidden ones too (a reopen recovers them).
    for (const commit of this.commits) commit.hidden = false;
    this.base = await storageOf(this.commits);
    return dropped.length;
  }

  /**
   * A new database holding what storage holds now; with `unpruned`, every log record as it was
   * first written (a compaction's pruned stub replaced by the full transition it stood for), so
   * that the transitions a store reads from it carry every body, meta and id that was committed.
   */
  async image(options: { unpruned: boolean }): Promise<Storage> {
    if (!options.unpruned) return storageOf(this.commits);
    const first = new Map<string, StorageOp>();
    for (const commit of this.commits) {
      for (const op of commit.ops) {
        if (op.type !== 'put' || seqOfLogKey(op.key) === null) continue;
        const hex = Buffer.from(op.key).toString('hex');
        if (!first.has(hex)) first.set(hex, op);
      }
    }
    return storageOf(this.commits, [...first.values()]);
  }

  async close(): Promise<void> {
    await this.base.close();
  }
}
