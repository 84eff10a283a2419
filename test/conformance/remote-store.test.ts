/**
 * The store conformance suite against `openRemoteStore` of `@stateflow/client`: each test's store
 * is a fresh memory store served by a real `startServer` on loopback, used only through the
 * store API over HTTP. What the suite checks of a local store thus holds for a client of a
 * server (the CLI through a running server, a checkpointer in another process).
 */
import { describe, it } from 'vitest';
import { openRemoteStore } from '@stateflow/client';
import { runConformance } from '@stateflow/conformance';
import type { StoreInitializer } from '@stateflow/conformance';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';

const served = new Map<Store, { server: ServerHandle; local: Store }>();

const remoteInitializer: StoreInitializer = {
  name: 'remote (openRemoteStore over HTTP)',
  async create(options) {
    const local = await openMemoryStore(options);
    const server = await startServer({ store: local, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
    const store = await openRemoteStore({ url: server.url, token: server.token });
    served.set(store, { server, local });
    return store;
  },
  async destroy(store) {
    const entry = served.get(store);
    served.delete(store);
    await store.close();
    await entry?.server.close();
    await entry?.local.close();
  },
  skip: {
    persistence: 'the served store is a memory store; persistence of the server\'s store is the local backends\' suite',
  },
  // The server stamps who wrote each publication (server README "Who wrote it").
  stampedMeta: ['writer'],
};

runConformance(remoteInitializer, { describe, it });
