/**
 * Faults on PostgreSQL (README "Timeouts", "How it works"): a writer frozen while it holds the
 * store's lock stalls the others for a bounded time only — they fail typed
 * (`STORE_UNAVAILABLE { outcome: 'not-sent', holderPid }`) until PostgreSQL ends the frozen
 * session, then go on; a connection terminated at any moment of opening, of a replay's staging
 * build, of a named lock or of a publish is a typed error or a transparent reconnect, never a
 * crash (a fault loop over timings; `STATEFLOW_PG_FAULT_ROUNDS` rounds per path, default 6);
 * the LISTEN connection reconnects and a watcher sees every transition once, in order; an
 * emptied `sf_schema` is damage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStateflowError, type StateflowError } from '@stateflow/core';
import type { PublishInput, Transition } from '@stateflow/store';
import { freshPostgresUrl, seededRandom, testPostgres } from '@stateflow/test-kit';
import { buildNewPostgresStore } from './build-new-store.js';
import { parseTarget } from './store-url.js';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';
import { LOCK_CLASS } from './schema.js';
import { startTcpProxy } from './test-support/tcp-proxy.js';

const server = await testPostgres();
const ROUNDS = Number(process.env.STATEFLOW_PG_FAULT_ROUNDS ?? '6');
const STALL_WRITER = fileURLToPath(new URL('./test-support/stall-writer.mjs', import.meta.url));
const schemaOf = (url: string): string => parseTarget(url).schema;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What an operation under fault ended with: its value, or the error it threw. */
async function settle<T>(work: () => Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await work() };
  } catch (error) {
    return { error };
  }
}

/** The code of a typed error; anything untyped fails the test that asks. */
function codeOf(error: unknown): string {
  expect(isStateflowError(error), `untyped error: ${String(error)}`).toBe(true);
  return (error as StateflowError).code;
}

describe.skipIf('unavailable' in server)('PostgreSQL: faults', () => {
  let admin: pg.Client;
  const urls: string[] = [];
  const fresh = (prefix: string): string => {
    const url = freshPostgresUrl(prefix);
    urls.push(url);
    return url;
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: (server as { url: string }).url });
    // Other work on the shared server may end this connection too: then its next query fails, not the process.
    admin.on('error', () => undefined);
    await admin.connect();
  });
  afterAll(async () => {
    for (const url of urls) await dropPostgresStore(url);
    await admin.end();
  });

  /** End every backend whose application name matches `pattern` (a LIKE pattern); how many. */
  const terminate = async (pattern: string, extra = 'true'): Promise<number> => {
    const ended = await admin.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid() AND ${extra}`,
      [pattern],
    );
    return ended.rows.filter((r) => r.ended).length;
  };

  /**
   * Run `work` once undisturbed and then `ROUNDS` times, each time with every connection whose
   * application name matches the pattern `prepare` returns terminated once, at another moment
   * of it (spread over the time the undisturbed run took); `check` judges each outcome.
   * @returns how many rounds a termination hit a connection
   */
  const faultLoop = async <T>(prepare: () => string, work: () => Promise<T>, check: (outcome: { value: T } | { error: unknown }) => Promise<void>): Promise<number> => {
    prepare();
    const started = performance.now();
    await check(await settle(work));
    const span = Math.max(2, performance.now() - started);
    const random = seededRandom(27);
    let landed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const pattern = prepare();
      const killer = sleep(span * ((round + random()) / ROUNDS)).then(() => terminate(pattern));
      const outcome = await settle(work);
      if ((await killer) > 0) landed++;
      await check(outcome);
    }
    return landed;
  };

  it('a writer frozen (SIGSTOP) while it holds the lock: the other fails typed after lockTimeoutMs naming its pid, goes on once PostgreSQL ends the frozen session', async () => {
    const url = fresh('stall');
    const schema = schemaOf(url);
    const store = await openPostgresStore(url, { lockTimeoutMs: 500 });
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, [STALL_WRITER, url, '3000'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
      const waitFor = async (done: () => boolean): Promise<void> => {
        for (let i = 0; i < 600 && !done(); i++) await sleep(50);
        expect(done()).toBe(true);
      };
      await waitFor(() => (out.match(/^ok /gm) ?? []).length >= 4);

      // Freeze the child until it is caught holding the store's lock inside its transaction.
      const holderNow = async (): Promise<number | null> => {
        const found = await admin.query<{ pid: number }>(
          `SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = hashtext($2)::oid AND l.objsubid = 2
              AND a.state = 'idle in transaction'`,
          [LOCK_CLASS, schema],
        );
        return found.rows[0]?.pid ?? null;
      };
      const random = seededRandom(5);
      let holder: number | null = null;
      for (let attempt = 0; attempt < 300 && holder === null; attempt++) {
        child.kill('SIGSTOP');
        await sleep(20);
        holder = await holderNow();
        if (holder === null) {
          child.kill('SIGCONT');
          await sleep(1 + Math.floor(random() * 30));
        }
      }
      expect(holder).not.toBeNull();

      const blocked = await store.publish({ changes: { 'session:b': { n: 1 } } }).catch((e: unknown) => e);
      expect(codeOf(blocked)).toBe('STORE_UNAVAILABLE');
      expect((blocked as StateflowError<'STORE_UNAVAILABLE'>).details).toEqual({ url: parseTarget(url).location, outcome: 'not-sent', holderPid: holder });
      expect((await store.state('session:b'))).toEqual({});

      // PostgreSQL ends the frozen session after its idle_in_transaction_session_timeout: the lock is free again.
      let accepted = false;
      for (let attempt = 0; attempt < 60 && !accepted; attempt++) {
        const result = await store.publish({ changes: { 'session:b': { n: 2 } } }).catch((e: unknown) => e);
        if (isStateflowError(result)) expect(result.code).toBe('STORE_UNAVAILABLE');
        else accepted = true;
      }
      expect(accepted).toBe(true);
      expect((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [holder])).rowCount).toBe(0);

      // The frozen writer wakes up: its write fails typed, and it goes on writing.
      const before = out.length;
      child.kill('SIGCONT');
      await waitFor(() => /^error STORE_UNAVAILABLE\n(?:.*\n)*ok \d+$/m.test(out.slice(before)));
      child.kill('SIGKILL');
      expect(out.match(/^error (.*)$/gm)?.every((line) => line === 'error STORE_UNAVAILABLE')).toBe(true);
      expect(await store.state('session:b')).toEqual({ n: 2 });
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      child?.kill('SIGCONT');
      child?.kill('SIGKILL');
      await store.close();
    }
  });

  it('an emptied sf_schema is STORE_CORRUPT, and nothing is changed', async () => {
    const url = fresh('noschema');
    const store = await openPostgresStore(url);
    await store.publish({ changes: { global: { a: 1 } } });
    await store.close();
    await admin.query(`DELETE FROM "${schemaOf(url)}".sf_schema`);
    const err = await openPostgresStore(url).catch((e: unknown) => e);
    expect(codeOf(err)).toBe('STORE_CORRUPT');
    expect((err as StateflowError<'STORE_CORRUPT'>).details).toMatchObject({ key: 'sf_schema' });
    expect((await admin.query(`SELECT count(*)::int AS n FROM "${schemaOf(url)}".sf_kv`)).rows[0]).toMatchObject({ n: expect.any(Number) });
    expect((await admin.query(`SELECT * FROM "${schemaOf(url)}".sf_schema`)).rowCount).toBe(0);
  });

  it('connections terminated at many moments of opening are typed errors; the store opens whole afterwards', async () => {
    let url = '';
    const landed = await faultLoop(
      () => {
        url = fresh('fopen');
        return `stateflow ${schemaOf(url)}`;
      },
      async () => {
        const store = await openPostgresStore(url);
        await store.close();
      },
      async (outcome) => {
        if ('error' in outcome) expect(codeOf(outcome.error)).toBe('STORE_UNAVAILABLE');
        const store = await openPostgresStore(url);
        await store.publish({ changes: { global: { ok: true } } });
        expect((await store.audit()).problems).toEqual([]);
        await store.close();
      },
    );
    expect(landed).toBeGreaterThan(0);
  });

  it('a connection the server ends the moment the pool hands it out (its FATAL in the packet of its startup) is a typed error, not an uncaught exception', async () => {
    const url = fresh('fhandout');
    await (await openPostgresStore(url)).close();
    const target = new URL(url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      target.host = `127.0.0.1:${proxy.port}`;
      // The first connection of an open is the one its schema check takes from the pool.
      proxy.endNextAtStartup();
      const refused = await settle(() => openPostgresStore(target.toString()));
      expect('error' in refused && codeOf(refused.error)).toBe('STORE_UNAVAILABLE');
      // A snapshot's connection (an audit) too, on an open store whose pool has no idle one.
      const store = await openPostgresStore(target.toString());
      try {
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [`stateflow ${schemaOf(url)}`]);
        proxy.endNextAtStartup();
        const audit = await settle(() => store.audit());
        if ('error' in audit) expect(codeOf(audit.error)).toBe('STORE_UNAVAILABLE');
        expect((await store.audit()).problems).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it("connections terminated at many moments of a replay's staging build: typed errors, the target whole or absent, never half-built", async () => {
    let url = '';
    const landed = await faultLoop(
      () => {
        // The staging schema's name is random: the URL's own application_name (which wins over
        // the store's) marks this build's connections, and no one else's.
        const marker = `faults-build-${Math.random().toString(16).slice(2)}`;
        url = `${fresh('fbuild')}&application_name=${marker}`;
        return marker;
      },
      () =>
        buildNewPostgresStore(url, async (store) => {
          for (let i = 0; i < 3; i++) await store.publishMany(Array.from({ length: 10 }, (_, j) => ({ changes: { global: { [`k${i * 10 + j}`]: true } } })));
          return 'built';
        }),
      async (outcome) => {
        if ('error' in outcome) expect(codeOf(outcome.error)).toBe('STORE_UNAVAILABLE');
        const reopened = await settle(() => openPostgresStore(url, { createIfMissing: false }));
        if ('error' in reopened) {
          expect(codeOf(reopened.error)).toBe('NOT_FOUND');
          expect('error' in outcome).toBe(true);
        } else {
          expect(reopened.value.lastSeq()).toBe(30);
          expect((await reopened.value.audit()).problems).toEqual([]);
          await reopened.value.close();
        }
      },
    );
    expect(landed).toBeGreaterThan(0);
  });

  it('connections terminated at many moments of publishes and named locks: typed errors, nothing partial, retries with the id land once', async () => {
    const url = fresh('fwrite');
    const schema = schemaOf(url);
    const store = await openPostgresStore(url);
    const other = await openPostgresStore(url);
    let round = 0;
    const failed: PublishInput[] = [];
    try {
      const landed = await faultLoop(
        () => `stateflow ${schema}`,
        async () => {
          round++;
          // Each operation with the inputs it publishes (a failed one is retried with them).
          const batch = (lane: number): PublishInput[] => Array.from({ length: 4 }, (_, j) => ({ changes: { [`session:${lane}`]: { [`r${round}_${j}`]: j } }, id: `r${round}-${lane}-${j}` }));
          const single: PublishInput = { changes: { 'session:0': { [`r${round}`]: 0 } }, id: `r${round}-0` };
          const locked: PublishInput = { changes: { 'session:3': { [`r${round}`]: 3 } }, id: `r${round}-3` };
          const operations: { inputs: PublishInput[]; run: () => Promise<unknown> }[] = [
            { inputs: [single], run: () => store.publish(single) },
            { inputs: batch(1), run: () => store.publishMany(batch(1)) },
            { inputs: batch(2), run: () => other.publishMany(batch(2)) },
            { inputs: [locked], run: () => store.withLock('ladder', () => other.publish(locked)) },
          ];
          const results = await Promise.allSettled(operations.map((op) => op.run()));
          for (const [i, result] of results.entries()) {
            if (result.status === 'fulfilled') continue;
            expect(codeOf(result.reason)).toBe('STORE_UNAVAILABLE');
            failed.push(...(operations[i]?.inputs ?? []));
          }
        },
        async () => {
          expect(await store.withLock('ladder', async () => 'again')).toBe('again');
        },
      );
      expect(landed).toBeGreaterThan(0);
      // Every failed publish retried with its id: it landed before (duplicate) or lands now, once.
      for (const input of failed) expect(['accepted', 'duplicate']).toContain((await store.publish(input)).status);
      const ids = new Map<string, number>();
      for await (const t of store.transitions()) if (t.id !== undefined) ids.set(t.id, (ids.get(t.id) ?? 0) + 1);
      expect([...ids.values()].every((count) => count === 1)).toBe(true);
      expect(ids.size).toBe((ROUNDS + 1) * (1 + 4 + 4 + 1));
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
      await other.close();
    }
  });

  it('the LISTEN connection terminated while transitions are published: it reconnects, and a watcher sees each transition once, in order', async () => {
    const url = fresh('listen');
    const schema = schemaOf(url);
    const watching = await openPostgresStore(url);
    const writer = await openPostgresStore(url);
    const total = 12 * Math.max(ROUNDS, 2);
    const seen: Transition[] = [];
    const stop = new AbortController();
    const watched = (async () => {
      for await (const t of watching.watch({ from: 0, signal: stop.signal })) {
        seen.push(t);
        if (seen.length === total) return;
      }
    })();
    const listener = async (): Promise<number | null> =>
      (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'", [`stateflow ${schema}`])).rows[0]?.pid ?? null;
    try {
      const pids = new Set<number>();
      for (let i = 1; i <= total; i++) {
        await writer.publish({ changes: { 'session:w': { i } } });
        if (i % 12 === 6) {
          // Wait for the current listener (a reconnect backs off), then end it mid-stream.
          let pid: number | null = null;
          for (let t = 0; t < 200 && (pid === null || pids.has(pid)); t++) {
            pid = await listener();
            if (pid === null || pids.has(pid)) await sleep(25);
          }
          expect(pid).not.toBeNull();
          pids.add(pid as number);
          expect(await terminate(`stateflow ${schema}`, `pid = ${pid as number}`)).toBe(1);
        }
      }
      await watched;
      expect(pids.size).toBe(total / 12);
      expect(seen.map((t) => t.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(seen.map((t) => t.changes[0]?.patch)).toEqual(Array.from({ length: total }, (_, i) => ({ i: i + 1 })));
    } finally {
      stop.abort();
      await watching.close();
      await writer.close();
    }
  });
});
