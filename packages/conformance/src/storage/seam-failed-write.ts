/**
 * A failed commit, as the store meets it (`capabilities.reopenAfterFailedWrite`; DESIGN.md "Fail
 * closed"): a store over the storage whose next commit fails before it reaches the storage. The
 * failed publish writes nothing; then a storage that declares it needs a reopen after a failed
 * write gets no write until it is reopened (REOPEN_REQUIRED, reads still served), and after the
 * reopen takes writes again with the failed one absent; one that does not takes the next write
 * at once.
 */
import assert from 'node:assert/strict';
import { StateflowError, isStateflowError } from '@stateflow/core';
import { openStoreOver } from '@stateflow/store';
import type { Storage, WriteSession } from '@stateflow/store';
import type { SeamRegistry } from './seam-support.js';

/** `storage`, with `failNext()` making its next commit (or `commitIf`) fail with STORE_IO, writing nothing. */
function failingOnce(storage: Storage): { storage: Storage; failNext(): void } {
  let fail = false;
  const failure = (): StateflowError => {
    fail = false;
    return new StateflowError('STORE_IO', 'Injected commit failure (conformance suite)', { location: storage.location, code: 'EINJECTED' });
  };
  const wrapped: Storage = new Proxy(storage, {
    get(target, key) {
      if (key === 'beginWrite') {
        return async (): Promise<WriteSession> => {
          const session = await target.beginWrite();
          return {
            commit: async (ops, options) => {
              if (!fail) return session.commit(ops, options);
              await session.abort();
              throw failure();
            },
            abort: () => session.abort(),
          };
        };
      }
      const value: unknown = Reflect.get(target, key);
      if (key === 'commitIf' && value !== undefined) {
        return async (...args: Parameters<NonNullable<Storage['commitIf']>>) => {
          if (fail) throw failure();
          return target.commitIf?.(...args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { storage: wrapped, failNext: () => (fail = true) };
}

/** The failed-write test. */
export function failedWrite({ init, plain }: SeamRegistry): void {
  const { reopenAfterFailedWrite } = init.manifest;
  const outcome = reopenAfterFailedWrite ? 'takes no write until reopened, then takes them again' : 'takes the next write at once';
  plain(`after a failed commit, which writes nothing, a store over the storage ${outcome} (reopenAfterFailedWrite: ${reopenAfterFailedWrite})`, async () => {
    let storage = await init.create();
    try {
      const faulty = failingOnce(storage);
      const store = await openStoreOver(faulty.storage);
      await store.publish({ changes: { 'cwd:/s': { a: 1 } } });
      faulty.failNext();
      const failed = await store.publish({ changes: { 'cwd:/s': { b: 2 } } }).catch((err: unknown) => err);
      assert.ok(isStateflowError(failed, 'STORE_IO'), `the failed commit's error: ${String(failed)}`);
      assert.deepEqual(await store.state('cwd:/s'), { a: 1 });
      const next = await store.publish({ changes: { 'cwd:/s': { c: 3 } } }).catch((err: unknown) => err);
      if (!reopenAfterFailedWrite) {
        assert.ok(!(next instanceof Error), `the next write: ${String(next)}`);
        assert.deepEqual(await store.state('cwd:/s'), { a: 1, c: 3 });
        await store.close();
        return;
      }
      assert.ok(isStateflowError(next, 'REOPEN_REQUIRED'), `the next write: ${String(next)}`);
      assert.equal(next.details.failure, 'STORE_IO');
      assert.deepEqual(await store.state('cwd:/s'), { a: 1 }, 'reads are still served');
      const { reopen } = init;
      assert.ok(reopen !== undefined, 'reopenAfterFailedWrite needs a storage the initializer can reopen');
      await store.close();
      storage = await reopen.call(init, storage);
      const reopened = await openStoreOver(storage);
      await reopened.publish({ changes: { 'cwd:/s': { c: 3 } } });
      assert.deepEqual(await reopened.state('cwd:/s'), { a: 1, c: 3 });
      assert.equal(reopened.lastSeq(), 2, 'the failed transition is not in the log');
      await reopened.close();
    } finally {
      await init.destroy(storage);
    }
  });
}
