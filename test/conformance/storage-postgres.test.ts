import { describe, it } from 'vitest';
import { dropPostgresStore, openPostgresStorage, parseTarget } from '@stateflow/store-postgres';
import { runStorageConformance } from '@stateflow/conformance';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';

const server = await testPostgres();
const urls = new WeakMap<object, string>();
if ('unavailable' in server) {
  describe('storage seam on postgres', () => it.skip(`(skipped: ${server.unavailable})`, () => undefined));
} else {
  runStorageConformance(
    {
      name: 'postgres',
      // A database many processes write, one transaction per commit; no replica configured here.
      manifest: {
        ...{ persistent: true, fsync: true, soleWriter: false, reopenAfterFailedWrite: false },
        ...{ getSync: false, readRanges: true, commitIf: true, onCommit: true, lock: true, replicas: false, connections: true, repairs: false },
      },
      async create() {
        const url = freshPostgresUrl('seam');
        const storage = await openPostgresStorage(parseTarget(url));
        urls.set(storage, url);
        return storage;
      },
      async reopen(storage) {
        const url = urls.get(storage) as string;
        await storage.close();
        const next = await openPostgresStorage(parseTarget(url));
        urls.set(next, url);
        return next;
      },
      async destroy(storage) {
        await storage.close();
        await dropPostgresStore(urls.get(storage) as string);
      },
    },
    { describe, it },
  );
}
