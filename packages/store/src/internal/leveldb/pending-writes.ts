/**
 * Buffered commits that are in the journal (`journal.ts`) but not yet in LevelDB: their
 * operations in commit order (by journal frame number), to be written to LevelDB oldest first,
 * and the latest value each of them gives a key, so that a point read sees every acknowledged
 * commit before LevelDB has it.
 */
import type { StorageOp } from '../../storage.js';

const keyOf = (key: Uint8Array): string => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
const bytesOf = (op: StorageOp): number => op.key.byteLength + (op.type === 'put' ? op.value.byteLength : 0);

/** Pending commits of one LevelDB storage (see the module comment). */
export class PendingWrites {
  #commits: { number: number; ops: StorageOp[] }[] = [];
  /** Per key: its latest pending value (`undefined`: deleted) and the frame number of the commit that set it. */
  #latest = new Map<string, { value: Uint8Array | undefined; number: number }>();
  #bytes = 0;
  /** Frame number of the newest commit added, and of the newest one LevelDB holds. */
  #added = 0;
  #written = 0;

  /** `through`: the frame number LevelDB already holds (frames are numbered for the life of the store). */
  constructor(through: number) {
    this.#added = through;
    this.#written = through;
  }

  /** Bytes of keys and values pending. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether no commit is pending. */
  get empty(): boolean {
    return this.#commits.length === 0;
  }

  /** Frame number of the newest commit added (LevelDB holds every commit once {@link written} reaches it). */
  get newest(): number {
    return this.#added;
  }

  /** Frame number of the newest commit LevelDB holds. */
  get writtenThrough(): number {
    return this.#written;
  }

  /** Add one commit's operations, journaled as frame `number` (the next one). */
  add(ops: StorageOp[], number: number): void {
    this.#added = number;
    this.#commits.push({ number, ops });
    for (const op of ops) {
      this.#latest.set(keyOf(op.key), { value: op.type === 'put' ? op.value : undefined, number });
      this.#bytes += bytesOf(op);
    }
  }

  /** A pending key's value (`{ value: undefined }` when a pending commit deleted it), or `null` when no pending commit touches it. */
  lookup(key: Uint8Array): { value: Uint8Array | undefined } | null {
    if (this.#latest.size === 0) return null;
    return this.#latest.get(keyOf(key)) ?? null;
  }

  /** Every pending commit's operations, oldest first, and the frame number of the newest: what to write to LevelDB next. */
  take(): { ops: StorageOp[]; through: number } {
    return { ops: this.#commits.flatMap((commit) => commit.ops), through: this.#added };
  }

  /** LevelDB holds frame number `number`, taken by a synced commit with nothing pending. */
  passed(number: number): void {
    this.#added = number;
    this.#written = number;
  }

  /** LevelDB now holds every commit up to frame `through` ({@link take}): forget them. */
  written(through: number): void {
    let count = 0;
    while (count < this.#commits.length && (this.#commits[count]?.number as number) <= through) count++;
    for (const { ops } of this.#commits.splice(0, count)) for (const op of ops) this.#bytes -= bytesOf(op);
    for (const [key, entry] of this.#latest) if (entry.number <= through) this.#latest.delete(key);
    this.#written = through;
  }
}
