/**
 * Buffered commits that are in the journal (`journal.ts`) but not yet in LevelDB: their
 * operations in commit order, to be written to LevelDB oldest first, and the latest value each of
 * them gives a key, so that a point read sees every acknowledged commit before LevelDB has it.
 */
import type { StorageOp } from '../../storage.js';

const keyOf = (key: Uint8Array): string => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');

/** Pending commits of one LevelDB storage (see the module comment). */
export class PendingWrites {
  #commits: StorageOp[][] = [];
  /** Per key: its latest pending value (`undefined`: deleted) and the number of the commit that set it. */
  #latest = new Map<string, { value: Uint8Array | undefined; commit: number }>();
  /** Commits added so far; a commit's number is its position in that count. */
  #added = 0;
  #bytes = 0;

  /** Bytes of keys and values pending. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether no commit is pending. */
  get empty(): boolean {
    return this.#commits.length === 0;
  }

  /** Add one commit's operations (after its journal append). */
  add(ops: StorageOp[]): void {
    this.#added++;
    this.#commits.push(ops);
    for (const op of ops) {
      this.#latest.set(keyOf(op.key), { value: op.type === 'put' ? op.value : undefined, commit: this.#added });
      this.#bytes += op.key.byteLength + (op.type === 'put' ? op.value.byteLength : 0);
    }
  }

  /** A pending key's value (`{ value: undefined }` when a pending commit deleted it), or `null` when no pending commit touches it. */
  lookup(key: Uint8Array): { value: Uint8Array | undefined } | null {
    if (this.#latest.size === 0) return null;
    return this.#latest.get(keyOf(key)) ?? null;
  }

  /** Every pending commit, oldest first, and the number of the newest: what to write to LevelDB next. */
  take(): { commits: StorageOp[][]; through: number } {
    return { commits: this.#commits.slice(), through: this.#added };
  }

  /** LevelDB now holds every commit up to number `through` ({@link take}): forget them. */
  written(through: number): void {
    const count = this.#commits.length - (this.#added - through);
    for (const ops of this.#commits.splice(0, count)) {
      for (const op of ops) this.#bytes -= op.key.byteLength + (op.type === 'put' ? op.value.byteLength : 0);
    }
    for (const [key, entry] of this.#latest) if (entry.commit <= through) this.#latest.delete(key);
  }
}
