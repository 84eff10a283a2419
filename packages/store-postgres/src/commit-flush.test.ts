/**
 * Where a durable commit waits for its WAL flush (README "Commit and WAL flush"): by default
 * (`flush: 'after-lock'`) the commit is sent with synchronous_commit off and the flush statement
 * follows on the same connection once the store's lock is free — another writer can take the
 * lock while it runs; `'under-lock'` commits with synchronous_commit on and sends no flush; a
 * buffered publish sends none either; a connection lost during the flush fails the publish with
 * an unknown outcome, and the transition is there (a retry with its id is a duplicate); a bad
 * `flush` option is refused and creates nothing.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { freshPostgresUrl, rejectionOf, testPostgres } from '@stateflow/test-kit';
import { FLUSH_SQL } from './commit-statements.js';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';
import { LOCK_CLASS } from './schema.js';

const server = await testPostgres();

/** What the store sent, per backend: every query text in order. */
interface Sent {
  pid: number;
  text: string;
}

describe.skipIf('unavailable' in server)('PostgreSQL: where a durable commit waits for its WAL flush', () => {
  let admin: pg.Client;
  const urls: string[] = [];
  const stores: Store[] = [];
  const query = pg.Client.prototype.query;
  let sent: Sent[] = [];
  /** Runs before a flush statement is sent, on the client that sends it. */
  let beforeFlush: ((client: pg.Client) => Promise<void>) | null = null;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: (server as { url: string }).url });
    await admin.connect();
    pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : '';
      if (this !== admin) sent.push({ pid: (this as unknown as { processID: number }).processID, text });
      const hook = beforeFlush;
      if (text === FLUSH_SQL && hook !== null) return hook(this).then(() => (query as (...a: unknown[]) => unknown).apply(this, args));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterEach(async () => {
    beforeFlush = null;
    for (const store of stores.splice(0)) await store.close();
    for (const url of urls.splice(0)) await dropPostgresStore(url);
  });
  afterAll(async () => {
    pg.Client.prototype.query = query;
    await admin.end();
  });

  const open = async (options: { flush?: 'after-lock' | 'under-lock'; durability?: 'fsync' | 'buffered' } = {}): Promise<{ store: Store; schema: string; url: string }> => {
    const url = freshPostgresUrl('flush');
    urls.push(url);
    const store = await openPostgresStore(url, { durability: 'fsync', ...options });
    stores.push(store);
    await store.head('global');
    return { store, url, schema: new URL(url).searchParams.get('schema') as string };
  };
  /** The last commit statement of the publish just made (the one that landed) and what its connection sent next. */
  const commitAndNext = (): { commit: Sent; next: Sent | undefined } => {
    const at = sent.findLastIndex((s) => s.text.includes('AS committed'));
    expect(at).toBeGreaterThanOrEqual(0);
    const commit = sent[at] as Sent;
    return { commit, next: sent.slice(at + 1).find((s) => s.pid === commit.pid) };
  };

  it('after-lock (the default): the commit does not wait for the flush; the flush follows with the lock free', async () => {
    const { store, schema } = await open();
    const lockFree: boolean[] = [];
    beforeFlush = async () => {
      const { rows } = await admin.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken', [LOCK_CLASS, schema]);
      lockFree.push(rows[0]?.taken === true);
      if (rows[0]?.taken === true) await admin.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, schema]);
    };
    // A new store's first publish commits in a write session (no tip record to compare yet), the next one with a compare-and-set.
    for (const [n, path] of [[1, /; COMMIT$/], [2, /^SELECT pg_advisory_xact_lock/]] as const) {
      sent = [];
      await store.publish({ changes: { 'session:a': { n } } });
      const { commit, next } = commitAndNext();
      expect(commit.text).toMatch(path);
      expect(commit.text).toContain('SET LOCAL synchronous_commit = off');
      expect(next?.text).toBe(FLUSH_SQL);
    }
    expect(lockFree).toEqual([true, true]);
    expect(await store.state('session:a')).toEqual({ n: 2 });
  });

  it('under-lock: the commit waits for the flush itself and no flush statement is sent', async () => {
    const { store } = await open({ flush: 'under-lock' });
    sent = [];
    await store.publish({ changes: { 'session:a': { n: 1 } } });
    const { commit } = commitAndNext();
    expect(commit.text).not.toContain('synchronous_commit');
    expect(sent.filter((s) => s.text === FLUSH_SQL)).toEqual([]);
  });

  it('a buffered publish sends no flush', async () => {
    const { store } = await open({ durability: 'buffered' });
    sent = [];
    await store.publish({ changes: { 'session:a': { n: 1 } } });
    expect(commitAndNext().commit.text).toContain('SET LOCAL synchronous_commit = off');
    expect(sent.filter((s) => s.text === FLUSH_SQL)).toEqual([]);
  });

  it('a connection lost during the flush is an unknown outcome; the commit landed once', async () => {
    const { store, url } = await open();
    beforeFlush = async (client) => {
      beforeFlush = null;
      await admin.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
    };
    const err = await rejectionOf(store.publish({ changes: { 'session:a': { n: 1 } }, id: 'flush-lost' }));
    expect(err.code).toBe('STORE_UNAVAILABLE');
    expect((err.details as { outcome?: string }).outcome).toBe('unknown');
    const other = await openPostgresStore(url);
    stores.push(other);
    expect(await other.state('session:a')).toEqual({ n: 1 });
    const retry = await other.publish({ changes: { 'session:a': { n: 1 } }, id: 'flush-lost' });
    expect(retry.status).toBe('duplicate');
    expect((await other.head('session:a')).rev).toBe(1);
  });

  it('refuses a bad flush option and creates nothing', async () => {
    const url = freshPostgresUrl('flush');
    const err = await rejectionOf(openPostgresStore(url, { flush: 'later' as 'after-lock' }));
    expect(err.code).toBe('INPUT_INVALID');
    expect(err.details).toEqual({ field: 'flush' });
    const { rows } = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [new URL(url).searchParams.get('schema')]);
    expect(rows).toEqual([]);
  });
});
