/**
 * The history check of many writers on one PostgreSQL store (`test-support/history.ts` says
 * what is checked): 4 writer processes × 2 workers publish with idempotency ids and expected
 * revisions through a TCP proxy, while a fault loop kills their backends
 * (`pg_terminate_backend` from a connection of its own) and drops proxied connections at
 * random moments — also between a COMMIT reaching the server and its answer reaching the
 * writer. Every attempt's invocation and outcome is recorded; at the end the log the store
 * holds is read, audited, and checked against the history.
 *
 * `STATEFLOW_PG_HISTORY_OPS` publishes in all (default 480; `npm run test:deep` runs 6,000),
 * `STATEFLOW_PG_HISTORY_SEED` the fault loop's seed (default drawn, printed).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresUrl, seededRandom, testPostgres } from '@stateflow/test-kit';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';
import { parseTarget } from './store-url.js';
import { checkHistory, parseHistory } from './test-support/history.js';
import type { Attempt, HeadRead, LogEntry } from './test-support/history.js';
import { startTcpProxy } from './test-support/tcp-proxy.js';
import type { TcpProxy } from './test-support/tcp-proxy.js';

const server = await testPostgres();
const WRITER = fileURLToPath(new URL('./test-support/history-writer.mjs', import.meta.url));
const PROCESSES = 4;
const WORKERS = 2;
const OPS = Number(process.env.STATEFLOW_PG_HISTORY_OPS ?? '480');
const SEED = Number(process.env.STATEFLOW_PG_HISTORY_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** Run one writer process to its end; its history (complete lines only). */
function writer(url: string, name: string, ops: number): Promise<{ attempts: Attempt[]; reads: HeadRead[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, url, String(ops), String(WORKERS), name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`writer ${name} exited ${code ?? signal} (an error escaped untyped?): ${err}`));
      resolve(parseHistory(out));
    });
  });
}

/** Faults until `stop` is called: backends of the store killed, proxied connections dropped. */
function faultLoop(admin: pg.Client, proxy: TcpProxy, schema: string, random: () => number): { stop: () => Promise<{ kills: number; drops: number }> } {
  let kills = 0;
  let drops = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, 5 + random() * 35));
      if (random() < 0.6) {
        // A backend of this store's writers (its application_name names the schema), busy ones first.
        const { rows } = await admin
          .query<{ killed: boolean }>(
            `SELECT pg_terminate_backend(pid) AS killed FROM (
               SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()
               ORDER BY (state <> 'idle') DESC, random() LIMIT 1) AS victim`,
            [`stateflow ${schema}`],
          )
          .catch(() => ({ rows: [] as { killed: boolean }[] }));
        if (rows[0]?.killed === true) kills++;
      } else if (proxy.drop((n) => Math.floor(random() * n))) {
        drops++;
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { kills, drops };
    },
  };
}

async function readLog(url: string): Promise<{ log: LogEntry[]; problems: unknown[] }> {
  const store = await openPostgresStore(url);
  try {
    const log: LogEntry[] = [];
    for await (const t of store.transitions()) {
      const op = (t.meta as { op?: unknown } | undefined)?.op;
      log.push({ seq: t.seq, hash: t.hash, ...(t.id === undefined ? {} : { id: t.id }), ...(typeof op === 'string' ? { op } : {}), changes: t.changes.map((c) => ({ stream: c.stream, rev: c.rev })) });
    }
    return { log, problems: (await store.audit()).problems };
  } finally {
    await store.close();
  }
}

describe.skipIf('unavailable' in server)('PostgreSQL: the history of many writers while backends are killed and connections dropped', () => {
  let admin: pg.Client;
  let proxy: TcpProxy;
  const url = freshPostgresUrl('history');
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: (server as { url: string }).url });
    admin.on('error', () => undefined);
    await admin.connect();
    const target = new URL(url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await (await openPostgresStore(url)).close();
  });
  afterAll(async () => {
    await proxy?.close();
    await admin?.end();
    await dropPostgresStore(url);
  });

  it(`${OPS} publishes: every ok once, every unknown at most once, no id twice, the compare-and-set linearizable per stream`, async () => {
    const started = performance.now();
    const proxied = new URL(url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const faults = faultLoop(admin, proxy, parseTarget(url).schema, seededRandom(SEED));
    const perWorker = Math.ceil(OPS / (PROCESSES * WORKERS));
    const written = await Promise.all(Array.from({ length: PROCESSES }, (_, p) => writer(proxied.toString(), `w${p}`, perWorker))).then(
      (histories) => ({ histories }),
      (err: unknown) => ({ err }),
    );
    const counts = await faults.stop();
    if ('err' in written) throw written.err;
    const { histories } = written;
    const history = { attempts: histories.flatMap((h) => h.attempts), reads: histories.flatMap((h) => h.reads) };
    const { log, problems } = await readLog(url);
    const violations = checkHistory(history, log);
    const n = (outcome: Attempt['outcome'], status?: string): number => history.attempts.filter((a) => a.outcome === outcome && (status === undefined || a.status === status || a.code === status)).length;
    const unknownLanded = history.attempts.filter((a) => a.outcome === 'unknown' && log.some((e) => e.op === a.op)).length;
    process.stdout.write(
      `PostgreSQL history check (STATEFLOW_PG_HISTORY_SEED=${SEED}): ${history.attempts.length} attempts of ${PROCESSES * WORKERS * perWorker} publishes ` +
        `(${n('ok', 'accepted')} accepted, ${n('ok', 'duplicate')} duplicate, ${n('fail', 'CONFLICT')} CONFLICT, ${n('fail', 'STORE_UNAVAILABLE')} not sent, ${n('unknown')} unknown of which ${unknownLanded} landed), ` +
        `${history.reads.length} head reads; ${counts.kills} backends killed, ${counts.drops} connections dropped; ${log.length} transitions; ` +
        `${violations.length} violations, ${problems.length} audit problems; ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    expect(history.attempts.filter((a) => a.outcome === 'ok').length).toBeGreaterThan(0);
    expect(counts.kills + counts.drops).toBeGreaterThan(0);
  }, 600_000);
});
