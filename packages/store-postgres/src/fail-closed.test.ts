/**
 * Fail closed on PostgreSQL as on LevelDB (store README "Fail closed and audit"): a row changed
 * behind the store's back (an UPDATE of a patch) is found by the audit (the log's hash, the
 * revision index's seal) and fails that stream's reads, other streams read; a schema newer than
 * this build is refused and nothing is changed; a connection lost in the middle of a publish fails it typed (STORE_UNAVAILABLE), nothing is
 * partial, the next publish works on a new connection, and a retry with the same idempotency id
 * returns the original when the lost commit did land; a named lock whose connection dies is
 * released to the next holder.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { parseTarget } from './store-url.js';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';
import { LOCK_CLASS, NAMED_LOCK_CLASS, SCHEMA_VERSION } from './schema.js';

const server = await testPostgres();

describe.skipIf('unavailable' in server)('PostgreSQL: fail closed', () => {
  let admin: pg.Client;
  let url: string;
  let schema: string;
  const stores: Store[] = [];
  const open = async (): Promise<Store> => {
    const store = await openPostgresStore(url, { checkpointInterval: 4 });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: (server as { url: string }).url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await dropPostgresStore(url);
  });
  const fresh = (): void => {
    url = freshPostgresUrl('fail');
    schema = parseTarget(url).schema;
  };

  it('a patch changed by an UPDATE of its row is found by the audit and fails its stream closed; other streams read', async () => {
    fresh();
    const store = await open();
    for (let i = 1; i <= 6; i++) await store.publish({ changes: { global: { n: i } } });
    await store.publish({ changes: { 'session:ok': { fine: true } } });
    await store.close();
    // The log record of seq 5 (key L + 8-byte seq), which holds the one copy of the patch as
    // JSON text: {"n":5} becomes {"n":8} under the seal it had.
    const logRow = Buffer.concat([Buffer.from('L'), Buffer.from([0, 0, 0, 0, 0, 0, 0, 5])]);
    const row = await admin.query<{ v: Buffer }>(`SELECT v FROM "${schema}".sf_kv WHERE k = $1`, [logRow]);
    const bytes = Buffer.from(row.rows[0]?.v as Buffer);
    const at = bytes.indexOf('"n":5', 65); // after the tag and the two chain hashes
    expect(at).toBeGreaterThan(0);
    bytes[at + 4] = 0x38;
    await admin.query(`UPDATE "${schema}".sf_kv SET v = $2 WHERE k = $1`, [logRow, bytes]);

    const reopened = await open();
    const report = await reopened.audit();
    expect(report.problems.map((p) => `${p.code} ${p.key}`)).toEqual(expect.arrayContaining(['SEAL_MISMATCH L/5']));
    const err = await reopened.stateAt('global', 5).catch((e: unknown) => e);
    expect(isStateflowError(err, 'STORE_CORRUPT') && err.details).toMatchObject({ stream: 'global', key: 'L/5' });
    expect(await reopened.state('session:ok')).toEqual({ fine: true });
  });

  it('an idempotency row edited to point at another request\'s transition: a retry fails closed (STORE_CORRUPT I/<id>) instead of answering duplicate with that transition; nothing written', async () => {
    fresh();
    const store = await open();
    await store.publish({ changes: { global: { a: 1 } }, id: 'req-a' });
    const other = await store.publish({ changes: { global: { b: 2 } }, id: 'req-b' });
    await store.fork('global', 'session:f', { id: 'req-f' });
    expect(other.transition?.seq).toBe(2);
    await store.close();
    // I/req-a and I/req-f (key I + the id's UTF-8) now say seq 2 (MessagePack fixint 0x02), req-b's transition.
    for (const id of ['req-a', 'req-f']) {
      const updated = await admin.query(`UPDATE "${schema}".sf_kv SET v = $2 WHERE k = $1`, [Buffer.from(`I${id}`), Buffer.from([0x02])]);
      expect(updated.rowCount).toBe(1);
    }
    const before = await admin.query(`SELECT encode(k, 'hex') AS k, encode(v, 'hex') AS v FROM "${schema}".sf_kv ORDER BY k`);

    const reopened = await open();
    const retries: [string, () => Promise<unknown>][] = [
      ['req-a', () => reopened.publish({ changes: { global: { a: 1 } }, id: 'req-a' })],
      ['req-a', () => reopened.publishMany([{ changes: { global: { a: 1 } }, id: 'req-a' }])],
      ['req-f', () => reopened.fork('global', 'session:f', { id: 'req-f' })],
      ['req-a', () => reopened.merge({ from: 'session:f', into: 'global', id: 'req-a' })],
    ];
    for (const [id, retry] of retries) {
      const err = await retry().then(
        (answer) => answer,
        (e: unknown) => e,
      );
      expect(isStateflowError(err, 'STORE_CORRUPT') && err.details).toMatchObject({ key: `I/${id}` });
    }
    // The genuine duplicate still answers, and nothing was written by the refused retries.
    expect(await reopened.publish({ changes: { global: { b: 2 } }, id: 'req-b' })).toMatchObject({ status: 'duplicate', transition: { seq: 2, id: 'req-b' } });
    const after = await admin.query(`SELECT encode(k, 'hex') AS k, encode(v, 'hex') AS v FROM "${schema}".sf_kv ORDER BY k`);
    expect(after.rows).toEqual(before.rows);
    expect((await reopened.audit()).problems.map((p) => `${p.code} ${p.key}`)).toEqual(expect.arrayContaining(['ID_MISMATCH I/req-a', 'ID_MISMATCH I/req-f']));
  });

  it('a schema newer than this build is STORE_VERSION and nothing is changed', async () => {
    fresh();
    await (await open()).publish({ changes: { global: { a: 1 } } });
    await stores.pop()?.close();
    await admin.query(`UPDATE "${schema}".sf_schema SET version = $1`, [SCHEMA_VERSION + 1]);
    const before = await admin.query(`SELECT encode(k, 'hex') AS k, encode(v, 'hex') AS v FROM "${schema}".sf_kv ORDER BY k`);
    const err = await openPostgresStore(url).catch((e: unknown) => e);
    expect(isStateflowError(err, 'STORE_VERSION') && err.details).toEqual({ found: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION });
    const after = await admin.query(`SELECT encode(k, 'hex') AS k, encode(v, 'hex') AS v FROM "${schema}".sf_kv ORDER BY k`);
    expect(after.rows).toEqual(before.rows);
    expect((await admin.query(`SELECT version FROM "${schema}".sf_schema`)).rows).toEqual([{ version: SCHEMA_VERSION + 1 }]);
  });

  it('a named lock whose connection dies is released: the next holder gets it, the store goes on', async () => {
    fresh();
    const a = await open();
    const b = await open();
    let entered!: () => void;
    let finish!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const holder = a.withLock('session-x', () => {
      entered();
      return new Promise<string>((resolve) => (finish = () => resolve('first holder')));
    });
    await holding;
    expect(await b.withLockIfFree('session-x', async () => 'taken')).toEqual({ ran: false });
    // Kill the connection that holds this schema's named lock (a server that died would drop it the same way).
    const killed = await admin.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = hashtext($2)::oid AND objsubid = 2`,
      [NAMED_LOCK_CLASS, `${schema}/session-x`],
    );
    expect(killed.rows.map((r) => r.killed)).toEqual([true]);
    expect(await b.withLock('session-x', async () => 'next holder')).toBe('next holder');
    await b.publish({ changes: { global: { after: true } } });
    expect(await a.state('global')).toEqual({ after: true });
    // The first holder ends later: its release meets a dead connection and does not throw.
    finish();
    expect(await holder).toBe('first holder');
    expect(await a.withLock('session-x', async () => 'again')).toBe('again');
  });

  it('a connection killed mid-publish fails it with STORE_UNAVAILABLE, nothing partial; the next publish works; a retry with the id finds the original or publishes once', async () => {
    fresh();
    const store = await open();
    await store.publish({ changes: { global: { n: 0 } } });
    // Kill the backend that holds this store's advisory lock (LOCK_CLASS, hashtext(schema)) —
    // only this test's schema's, never other test files' connections — while publishes wait on it.
    const kills: Promise<unknown>[] = [];
    const killer = setInterval(() => {
      kills.push(
        admin
          .query(
            `SELECT pg_terminate_backend(pid) FROM pg_locks
              WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND classid = $1 AND objid = hashtext($2)::oid AND objsubid = 2 AND pid <> pg_backend_pid()`,
            [LOCK_CLASS, schema],
          )
          .catch(() => undefined),
      );
    }, 1);
    // Rounds of 30 racing publishes until the killer has caught at least one (a loaded machine
    // can let a round commit between two of its queries).
    const outcomes: PromiseSettledResult<unknown>[] = [];
    for (let round = 0; round < 20 && !outcomes.some((o) => o.status === 'rejected'); round++) {
      const publishes = Array.from({ length: 30 }, (_, j) => round * 30 + j).map((i) => store.publish({ changes: { global: { [`k${i}`]: i } }, id: `req-${i}` }));
      outcomes.push(...(await Promise.allSettled(publishes)));
    }
    clearInterval(killer);
    await Promise.all(kills);
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ i, err: o.reason as unknown }] : []));
    expect(failed.length).toBeGreaterThan(0);
    for (const { err } of failed) expect(isStateflowError(err, 'STORE_UNAVAILABLE')).toBe(true);
    // Nothing partial, and the store goes on: every failed request retried with its id lands exactly once.
    for (const { i } of failed) {
      const retry = await store.publish({ changes: { global: { [`k${i}`]: i } }, id: `req-${i}` });
      expect(['accepted', 'duplicate', 'noop']).toContain(retry.status);
    }
    const state = await store.state('global');
    expect(Object.keys(state).sort()).toEqual(['n', ...Array.from({ length: outcomes.length }, (_, i) => `k${i}`)].sort());
    const ids = new Map<string, number>();
    for await (const t of store.transitions()) if (t.id !== undefined) ids.set(t.id, (ids.get(t.id) ?? 0) + 1);
    expect([...ids.values()].every((n) => n === 1)).toBe(true);
    expect((await store.audit()).problems).toEqual([]);
  });
});
