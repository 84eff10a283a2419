/**
 * `stateflow --read-replica URL` (cli README "Global options", store-postgres README "Read
 * replicas") on a real primary + hot standby made for this file (test-kit `startPostgresPair`):
 * the historical reads of `log`, `show` and `audit` reach the standby (through a TCP proxy of
 * this file that counts the connections and bytes it relays) and answer exactly what the primary
 * alone answers; the flag with a LevelDB store or a URL of another scheme is USAGE before
 * anything opens.
 */
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresPair, type PostgresPair } from '@stateflow/test-kit';
import { expectOk, jsonError, removeDir, stateflow, tempDir } from './helpers.js';

const pair = await startPostgresPair();

describe.skipIf('unavailable' in pair)('stateflow --read-replica', () => {
  const { primaryUrl, standbyUrl, stop } = pair as PostgresPair;
  const url = `${primaryUrl}?schema=sf_cli_replica`;
  let primary: pg.Client;
  let standby: pg.Client;
  let root: string;

  /** Connections made through the counting proxy in front of the standby, and the bytes it relayed. */
  const relayed = { connections: 0, bytes: 0 };
  let proxy: Server;
  let proxyUrl: string;

  beforeAll(async () => {
    root = await tempDir('cli-replica');
    // The CLI reaches the standby only through this proxy, which counts what it relays.
    const target = new URL(standbyUrl);
    proxy = createServer((client) => {
      relayed.connections += 1;
      const upstream = connect(Number(target.port), target.hostname);
      client.on('data', (chunk) => (relayed.bytes += chunk.length));
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = new URL(standbyUrl);
    proxied.port = String((proxy.address() as AddressInfo).port);
    proxyUrl = proxied.toString();
    primary = new pg.Client({ connectionString: primaryUrl });
    standby = new pg.Client({ connectionString: standbyUrl });
    await primary.connect();
    await standby.connect();
    for (let i = 1; i <= 6; i++) expectOk(await stateflow(['--store', url, '--cwd', '/proj', 'patch', JSON.stringify({ tactics: { step: i } })]));
    // Wait until the standby has replayed every write.
    const lsn = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]?.lsn;
    for (let i = 0; i < 400; i++) {
      const done = await standby.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
      if (done.rows[0]?.done === true) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  afterAll(async () => {
    await primary?.end().catch(() => undefined);
    await standby?.end().catch(() => undefined);
    await new Promise((resolve) => proxy?.close(resolve));
    if (root !== undefined) await removeDir(root);
    await stop();
  });

  it('log, show and audit read through the standby and answer what the primary alone answers', async () => {
    for (const command of [['log', '--json'], ['show', '3', '--json'], ['audit', '--json']]) {
      const alone = expectOk(await stateflow(['--store', url, ...command]));
      const before = { ...relayed };
      const through = expectOk(await stateflow(['--store', url, '--read-replica', proxyUrl, ...command]));
      expect(through.stdout, command.join(' ')).toBe(alone.stdout);
      expect(relayed.connections - before.connections, `${command.join(' ')}: connections to the standby`).toBeGreaterThan(0);
      // More than a connection's start-up: the queries of the reads went there.
      expect(relayed.bytes - before.bytes, `${command.join(' ')}: bytes sent to the standby`).toBeGreaterThan(200);
    }
  });

  it('is USAGE with a LevelDB store and with a URL that is not postgres://', async () => {
    const leveldb = await stateflow(['--dir', path.join(root, 'level'), '--read-replica', standbyUrl, 'log', '--json']);
    expect(jsonError(leveldb, 2)).toMatchObject({ code: 'USAGE', message: expect.stringContaining('--read-replica needs a PostgreSQL store') });
    const mysql = await stateflow(['--store', url, '--read-replica', 'mysql://replica/db', 'log', '--json']);
    expect(jsonError(mysql, 2)).toMatchObject({ code: 'USAGE', message: expect.stringContaining('--read-replica takes a postgres:// URL') });
  });
});
