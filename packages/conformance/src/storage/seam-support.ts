/**
 * What the storage seam's tests share: byte helpers, a commit in one call, error checks, and
 * the registry that hands each test a fresh storage — or registers it as skipped, with the
 * reason, when the initializer's manifest lacks what it needs.
 */
import assert from 'node:assert/strict';
import { isStateflowError } from '@stateflow/core';
import type { Storage, StorageManifest, StorageOp } from '@stateflow/store';
import type { ConformanceOptions, TestApi } from '../initializer.js';
import { skipTest } from '../internal/group.js';

/**
 * How the suite obtains storages: `create` a new, empty one; `destroy` closes it (if open) and
 * releases what it used; `reopen` (persistent backends) closes it and opens the same data again.
 */
export interface StorageInitializer {
  /** Backend name shown in the test titles. */
  name: string;
  /**
   * What every storage `create` makes declares and implements (`storageManifest` of one): the
   * suite registers the tests of what it has and skips the others with the reason, at
   * registration (as abstract-level's suite reads `supports`), and a test checks each storage
   * against it.
   */
  manifest: StorageManifest;
  create(): Promise<Storage>;
  destroy(storage: Storage): Promise<void>;
  reopen?(storage: Storage): Promise<Storage>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const bytes = (value: string): Uint8Array => Buffer.from(value, 'utf8');
export const text = (value: Uint8Array | undefined): string | undefined => (value === undefined ? undefined : Buffer.from(value).toString('utf8'));
export const put = (key: string, value: string): StorageOp => ({ type: 'put', key: bytes(key), value: bytes(value) });
export const del = (key: string): StorageOp => ({ type: 'del', key: bytes(key) });

/** One write session committing `ops`. */
export async function commit(storage: Storage, ops: StorageOp[], sync = false): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(ops, { sync });
}

/** The keys of `entries`, hex. */
export async function keysOf(entries: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<string[]> {
  const out: string[] = [];
  for await (const [key] of entries) out.push(Buffer.from(key).toString('hex'));
  return out;
}

/** Await `action`, expecting a StateflowError of one of `codes`. */
export async function rejects(action: () => Promise<unknown>, codes: string[], label: string): Promise<void> {
  try {
    await action();
  } catch (err) {
    assert.ok(isStateflowError(err), `${label}: expected a StateflowError, got ${String(err)}`);
    assert.ok(codes.includes(err.code), `${label}: expected ${codes.join(' | ')}, got ${err.code}: ${err.message}`);
    return;
  }
  assert.fail(`${label}: expected ${codes.join(' | ')}, but it resolved`);
}

/** Registers the seam's tests for one initializer. */
export interface SeamRegistry {
  readonly init: StorageInitializer;
  readonly options: ConformanceOptions;
  /** A test over a fresh storage, destroyed afterwards. */
  test(name: string, body: (storage: Storage) => Promise<void>): void;
  /**
   * A test over a fresh storage that needs `requirement` of the manifest (`true`); registered as
   * skipped with `reason` when the manifest says `false`.
   */
  needs(requirement: keyof StorageManifest, reason: string, name: string, body: (storage: Storage) => Promise<void>): void;
  /** A test that creates, reopens and destroys its own storages. */
  plain(name: string, body: () => Promise<void>): void;
  /** Register `name` as skipped, with the reason. */
  skip(name: string, reason: string): void;
}

/** The registry of `init` on `api`. */
export function seamRegistry(init: StorageInitializer, api: TestApi, options: ConformanceOptions): SeamRegistry {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const test = (name: string, body: (storage: Storage) => Promise<void>): void => {
    api.it(
      name,
      async () => {
        const storage = await init.create();
        try {
          await body(storage);
        } finally {
          await init.destroy(storage);
        }
      },
      timeout,
    );
  };
  const skip = (name: string, reason: string): void => skipTest(api, options, { backend: init.name, group: 'storage', test: name, reason });
  return {
    init,
    options,
    test,
    needs: (requirement, reason, name, body) => (init.manifest[requirement] ? test(name, body) : skip(name, `${reason} (manifest: ${requirement} false)`)),
    plain: (name, body) => api.it(name, body, timeout),
    skip,
  };
}
