/**
 * The storage pool gauges (server README "Observability") on a server over a real PostgreSQL
 * store: `stateflow_storage_pool_connections{pool, state}` and `stateflow_storage_pool_max{pool}`
 * for the store's pool and its named-lock pool, parsed from a scrape with the Prometheus text
 * parser; a LevelDB store has none of their series.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import type { Store } from '@stateflow/store';
import { freshPostgresUrl, removeDir, tempDir, testPostgres } from '@stateflow/test-kit';
import { http } from './fixtures.js';
import { parseMetrics, samples, total } from './prometheus-text.js';

const postgres = await testPostgres();

/** The parsed scrape of `server`'s /metrics, as the owner. */
async function scrape(server: ServerHandle): Promise<ReturnType<typeof parseMetrics>> {
  const response = await fetch(`${server.url}/metrics`, { headers: { 'x-stateflow-token': server.token } });
  expect(response.status).toBe(200);
  return parseMetrics(await response.text());
}

describe.skipIf('unavailable' in postgres)('storage pool gauges on PostgreSQL', () => {
  const url = freshPostgresUrl('metrics');
  let store: Store;
  let server: ServerHandle;
  beforeAll(async () => {
    store = await openPostgresStore(url, { maxConnections: 4 });
    server = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    await dropPostgresStore(url);
  });

  it('name each pool with its open, idle and waiting connections and its maximum', async () => {
    const publish = await http(`${server.url}/v1/store/publish`, { headers: { 'x-stateflow-token': server.token }, body: { changes: { global: { n: 1 } } } });
    expect(publish.status).toBe(200);
    const metrics = await scrape(server);
    expect(total(metrics, 'stateflow_storage_pool_max', { pool: 'store' })).toBe(4);
    expect(total(metrics, 'stateflow_storage_pool_max', { pool: 'named-lock' })).toBe(100);
    const open = total(metrics, 'stateflow_storage_pool_connections', { pool: 'store', state: 'total' });
    expect(open).toBeGreaterThanOrEqual(1);
    expect(open).toBeLessThanOrEqual(4);
    expect(total(metrics, 'stateflow_storage_pool_connections', { pool: 'store', state: 'idle' })).toBeLessThanOrEqual(open);
    expect(total(metrics, 'stateflow_storage_pool_connections', { pool: 'store', state: 'waiting' })).toBe(0);
    expect(samples(metrics, 'stateflow_storage_pool_connections').map((s) => s.labels?.['pool']).sort()).toEqual(['named-lock', 'named-lock', 'named-lock', 'store', 'store', 'store']);
  });
});

describe('storage pool gauges on LevelDB', () => {
  let root: string;
  let server: ServerHandle;
  beforeAll(async () => {
    root = await tempDir('metrics-level');
    server = await startServer({ dir: path.join(root, 'store'), port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await removeDir(root);
  });

  it('have no series: LevelDB has no connection pools', async () => {
    const metrics = await scrape(server);
    expect(metrics.types.get('stateflow_storage_pool_connections')).toBe('GAUGE');
    expect(samples(metrics, 'stateflow_storage_pool_connections')).toEqual([]);
  });
});
