/**
 * The storage seam (CONVENTIONS.md "Backend seam"): the store validates, enforces expected
 * revisions and encodes, then calls this small interface. One adapter over `abstract-level`
 * (`level-storage.ts`) serves both `classic-level` (on disk) and `memory-level`; what differs is
 * data ({@link StorageCapabilities}), never `if (backend === …)`. Adapters throw only
 * `StateflowError`s.
 */
import { StateflowError } from '@stateflow/core';
import type { KeyRange } from './keys.js';

/** What a storage backend can promise. */
export interface StorageCapabilities {
  /** Data survives process exit. */
  persistent: boolean;
  /** `sync: true` writes reach stable storage before the write resolves. */
  fsync: boolean;
}

/** One operation of an atomic batch. */
export type StorageOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** Iteration options: a half-open key range, optionally reversed and limited. */
export interface IterateOptions extends Partial<KeyRange> {
  reverse?: boolean;
  limit?: number;
}

/** The storage interface every store backend implements. Keys and values are bytes. */
export interface Storage {
  /** Directory on disk, or `null` in memory. */
  readonly location: string | null;
  readonly capabilities: StorageCapabilities;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  /** Apply every operation atomically; `sync` waits for stable storage where supported. */
  write(ops: StorageOp[], options: { sync: boolean }): Promise<void>;
  /** Entries in key order (or reverse) within the range. */
  iterate(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
  close(): Promise<void>;
}

/** `NOT_FOUND { dir }`: `dir` holds no Stateflow store (and nothing was created there). */
export function storeNotFound(dir: string, why: string): StateflowError<'NOT_FOUND'> {
  return new StateflowError('NOT_FOUND', `No Stateflow store at ${dir} (${why}); nothing was created`, { dir });
}
