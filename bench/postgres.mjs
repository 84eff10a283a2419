/**
 * Bench — PostgreSQL backend (store-postgres README "LevelDB or PostgreSQL"), ratios in one run
 * on the same server: publish rate of a single writer and of 8 concurrent writers across 2
 * processes, against a raw single-row INSERT loop on the same server (the physical limit: one
 * committed row per transaction, as many connections as writers) and against the LevelDB
 * backend; `stateAt` on the two real histories against LevelDB; bytes per revision.
 * Needs PostgreSQL at STATEFLOW_TEST_POSTGRES (default postgres://postgres@127.0.0.1:5432/test).
 *
 *   node bench/postgres.mjs            # BENCH_SCALE=0.1 for a quick run
 *   node bench/postgres.mjs publish        # the publish rows only
 *   node bench/postgres.mjs writer URL N LANES   (the child of the 2-process rows)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { diff } from '@stateflow/core';
import { openStore } from '@stateflow/store-leveldb';
import { openStoreOver } from '@stateflow/store';
import { dropPostgresStore, openPostgresStorage, openPostgresStore, parseTarget } from '@stateflow/store-postgres';
import { startPostgresPair } from '@stateflow/test-kit';
import { BENCH_DIR, REPEATS, dirBytes, median, removeDir, report, rng, scaled, tempDir, time } from './lib.mjs';

const SELF = fileURLToPath(import.meta.url);
const BASE = process.env.STATEFLOW_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const HISTORIES = path.resolve(BENCH_DIR, '..', '..', 'shared', 'data', 'histories');
const FILES = ['eslint-package-json.jsonl', 'matrix-react-sdk-en_EN-json.jsonl'];
const urlFor = (schema) => {
  const url = new URL(BASE);
  url.searchParams.set('schema', schema);
  return url.toString();
};
const patchFor = (i, lane) => ({ tactics: { [`k${i % 50}`]: { i, lane, text: 'x'.repeat(100) } } });

/** Wait for the parent's `go` line on stdin (the children of a row start together, after their setup). */
function waitForGo() {
  process.stdout.write('ready\n');
  return new Promise((resolve) => {
    process.stdin.setEncoding('utf8').on('data', (d) => d.includes('go') && resolve());
  });
}

/**
 * Child: `lanes` concurrent publish loops of `n` publishes each on the PostgreSQL store at `url`.
 * Its last stdout line counts its commits (`pg`'s query wrapped, counting only: a statement with
 * a `committed` column is a commit; `lost`: a compare-and-set that found the tip moved) and the
 * catch-up snapshots it took.
 */
async function childWriter(url, n, lanes) {
  const counts = { commits: 0, lost: 0, snapshots: 0 };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(...a) {
    const text = typeof a[0] === 'string' ? a[0] : '';
    const result = query.apply(this, a);
    if (text.startsWith('BEGIN ISOLATION LEVEL REPEATABLE READ')) counts.snapshots++;
    if (text.includes('AS committed')) {
      counts.commits++;
      result.then((r) => (Array.isArray(r) ? r.at(-1) : r).rows[0]?.committed === false && counts.lost++, () => undefined);
    }
    return result;
  };
  const store = await openPostgresStore(url, { durability: 'fsync', maxConnections: lanes + 2 });
  await store.head('global');
  await waitForGo();
  Object.assign(counts, { commits: 0, lost: 0, snapshots: 0 });
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    for (let i = 0; i < n; i++) await store.publish({ changes: { [`session:w${process.pid}-${lane}`]: patchFor(i, lane) } });
  }));
  await store.close();
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(0);
}

/**
 * The statement of one raw INSERT: a row of its own key, or (`gapFree`) a row keyed by the next
 * number of a one-row counter the same autocommitted statement increments — a gap-free global
 * sequence at its cheapest in PostgreSQL, the counter row locked from the increment to the
 * commit's WAL flush.
 */
const insertSql = (schema, gapFree) => (gapFree
  ? `WITH s AS (UPDATE "${schema}".tip SET seq = seq + 1 RETURNING seq) INSERT INTO "${schema}".raw (k, v) SELECT int8send(s.seq) || $1, $2 FROM s`
  : `INSERT INTO "${schema}".raw (k, v) VALUES ($1, $2)`);

/** A schema with the raw INSERT loops' table and counter row. */
const rawSchema = (schema) => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.raw (k bytea PRIMARY KEY, v bytea NOT NULL); CREATE TABLE ${schema}.tip (seq bigint NOT NULL); INSERT INTO ${schema}.tip VALUES (0)`);

/** Child: `lanes` concurrent raw INSERT loops of `n` single-row transactions each (`gapFree`: {@link insertSql}). */
async function childInsert(schema, n, lanes, gapFree) {
  const clients = await Promise.all(Array.from({ length: lanes }, async () => {
    const client = new pg.Client({ connectionString: BASE });
    await client.connect();
    return client;
  }));
  await waitForGo();
  await Promise.all(clients.map(async (client, lane) => {
    const value = Buffer.from(JSON.stringify(patchFor(0, lane)));
    const sql = insertSql(schema, gapFree);
    for (let i = 0; i < n; i++) await client.query(sql, [Buffer.from(`${process.pid}/${lane}/${i}`), value]);
  }));
  await Promise.all(clients.map((client) => client.end()));
  process.exit(0);
}

async function admin(sql) {
  const client = new pg.Client({ connectionString: BASE });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Milliseconds `children` processes running `args` take, from the moment all of them are set up
 * (connected, store open) to the last exit: process start-up is not part of the figure. With
 * `reports`, each child's last stdout line (JSON) is pushed to it.
 */
async function processes(children, args, reports = null) {
  const spawned = Array.from({ length: children }, () => spawn(process.execPath, [SELF, ...args], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const outputs = spawned.map(() => ({ text: '' }));
  const exited = spawned.map((child) => new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench child exited ${code}`))))));
  await Promise.all(spawned.map((child, i) => new Promise((resolve) => child.stdout.setEncoding('utf8').on('data', (d) => {
    outputs[i].text += d;
    if (d.includes('ready')) resolve();
  }))));
  const { ms } = await time(async () => {
    for (const child of spawned) child.stdin.write('go\n');
    await Promise.all(exited);
  });
  if (reports !== null) for (const { text } of outputs) reports.push(JSON.parse(text.trim().split('\n').at(-1)));
  return ms;
}

const rate = (ops, ms) => (ops / ms) * 1000;

/** One round of every publish scenario on fresh schemas: rates per second. */
async function publishRound(n, per) {
  const schema1 = `sf_bench_${process.pid}_1`;
  await dropPostgresStore(urlFor(schema1));
  const store = await openPostgresStore(urlFor(schema1), { durability: 'fsync' });
  await store.head('global');
  const pgSingle = await time(async () => {
    for (let i = 0; i < n; i++) await store.publish({ changes: { 'session:w': patchFor(i, 0) } });
  });
  await store.close();
  await rawSchema('raw1');
  const rawSingle = await processes(1, ['insert', 'raw1', String(n), '1']);
  await rawSchema('raw1');
  const gapFreeSingle = await processes(1, ['insert', 'raw1', String(n), '1', 'gap-free']);
  const dir = await tempDir('pg-level');
  const level = await openStore(dir, { durability: 'fsync' });
  const levelSingle = await time(async () => {
    for (let i = 0; i < n; i++) await level.publish({ changes: { 'session:w': patchFor(i, 0) } });
  });
  await level.close();
  await removeDir(dir);

  const schema8 = `sf_bench_${process.pid}_8`;
  await dropPostgresStore(urlFor(schema8));
  await (await openPostgresStore(urlFor(schema8))).close();
  const reports = [];
  const pg8 = await processes(2, ['writer', urlFor(schema8), String(per), '4'], reports);
  const sum = (field) => reports.reduce((total, r) => total + r[field], 0);
  await rawSchema('raw8');
  const raw8 = await processes(2, ['insert', 'raw8', String(per), '4']);
  await rawSchema('raw8');
  const gapFree8 = await processes(2, ['insert', 'raw8', String(per), '4', 'gap-free']);
  const dir8 = await tempDir('pg-level8');
  const level8 = await openStore(dir8, { durability: 'fsync' });
  const levelConcurrent = await time(() => Promise.all(Array.from({ length: 8 }, async (_, lane) => {
    for (let i = 0; i < per; i++) await level8.publish({ changes: { [`session:w${lane}`]: patchFor(i, lane) } });
  })));
  await level8.close();
  await removeDir(dir8);
  for (const s of [schema1, schema8]) await dropPostgresStore(urlFor(s));
  await admin('DROP SCHEMA IF EXISTS raw1 CASCADE; DROP SCHEMA IF EXISTS raw8 CASCADE');
  const total = per * 8;
  return {
    pgSingle: rate(n, pgSingle.ms), rawSingle: rate(n, rawSingle), levelSingle: rate(n, levelSingle.ms),
    pg8: rate(total, pg8), raw8: rate(total, raw8), level8: rate(total, levelConcurrent.ms),
    gapFreeSingle: rate(n, gapFreeSingle), gapFree8: rate(total, gapFree8),
    commits8: sum('commits'), lost8: sum('lost'), snapshots8: sum('snapshots'), total8: total,
  };
}

async function publishRates() {
  const n = scaled(1_000, 20);
  const per = Math.max(5, Math.round(n / 8));
  const runs = [];
  for (let i = 0; i < REPEATS; i++) runs.push(await publishRound(n, per));
  const med = (f) => median(runs.map(f));
  const rows = [
    ['single writer (fsync)', n, med((r) => r.pgSingle), med((r) => r.rawSingle), med((r) => r.pgSingle / r.rawSingle), med((r) => r.gapFreeSingle), med((r) => r.pgSingle / r.gapFreeSingle), med((r) => r.levelSingle), med((r) => r.pgSingle / r.levelSingle), 1],
    ['8 writers, 2 processes (fsync)', per * 8, med((r) => r.pg8), med((r) => r.raw8), med((r) => r.pg8 / r.raw8), med((r) => r.gapFree8), med((r) => r.pg8 / r.gapFree8), med((r) => r.level8), med((r) => r.pg8 / r.level8), med((r) => r.pg8 / r.pgSingle)],
  ];
  await report(
    'PostgreSQL: publish rate vs a raw single-row INSERT loop, vs LevelDB and vs one writer',
    ['scenario', 'publishes', 'PostgreSQL publish/s', 'raw INSERT/s', 'ratio publish/INSERT', 'gap-free raw INSERT/s', 'ratio publish/gap-free INSERT', 'LevelDB publish/s', 'ratio PostgreSQL/LevelDB', 'ratio vs one PostgreSQL writer'],
    rows,
    [
      `Each scenario ran ${REPEATS} times (rounds alternate PostgreSQL, raw INSERT and LevelDB); every column is the median, every ratio the median of the per-round ratios.`,
      'raw INSERT: one row (key + the JSON of the same patch) per autocommitted transaction, from as many connections as writers: the physical limit of one durable commit per transition.',
      'gap-free raw INSERT: the same rows keyed by the next number of a one-row counter incremented in the same autocommitted statement (a gap-free global sequence at its cheapest: the counter row is locked from the increment to the commit\'s WAL flush, so commits of different keys wait for each other as the store\'s do).',
      'Processes (the 2-process rows, the raw INSERT loops) are timed from the moment every one of them is connected to the last exit: start-up is not counted.',
      'LevelDB: the same publishes on the embedded store (8 writers in one process, since one process holds a LevelDB directory).',
      `Contention of the 2-process row (the compare-and-set on the tip record, medians over the rounds): ${med((r) => r.total8 / (r.commits8 - r.lost8)).toFixed(2)} publishes per landed commit (group commit), ${(100 * med((r) => r.lost8 / r.commits8)).toFixed(1)} % of the commits sent lost their compare-and-set to the other process (nothing written; the loser catches up and stages again), ${med((r) => r.snapshots8 / r.total8).toFixed(2)} catch-up snapshots per publish.`,
    ],
  );
  return rows;
}

/** The stream at `rev` for each of `reads` on a new store over `open()` (history cache off): ms and queries per read. */
async function coldReads(open, reads, queries) {
  const store = await open();
  const before = queries.n;
  const t = await time(async () => {
    for (const r of reads) await store.stateAt('cwd:/repo', r);
  });
  const sent = queries.n - before;
  await store.close();
  return { ms: t.ms / reads.length, queries: sent / reads.length };
}

/** `pg`'s `Client.prototype.query` counted (counting only) until `stop()`. */
function countQueries() {
  const queries = { n: 0 };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(...a) {
    queries.n++;
    return query.apply(this, a);
  };
  return { queries, stop: () => (pg.Client.prototype.query = query) };
}

/** A store at `url` whose storage has no `readRanges` (every historical read takes point reads, as before one-round-trip reads). */
async function pointReadingStore(url) {
  const storage = await openPostgresStorage(parseTarget(url));
  const hidden = new Proxy(storage, {
    get(target, name) {
      if (name === 'readRanges') return undefined;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return openStoreOver(hidden, { cacheSize: 0 });
}

/** The non-empty net patches of the history in `file`, or null (with a warning) when it is missing. */
function historyPatches(file) {
  const full = path.join(HISTORIES, file);
  if (!existsSync(full)) {
    if (process.env.CI === 'true') throw new Error(`${full} is missing under CI`);
    console.warn(`SKIPPED: ${full} not found (the shared histories live beside the checkout)`);
    return null;
  }
  const docs = readFileSync(full, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l).doc);
  const patches = [];
  let prev = {};
  for (const doc of docs) {
    const p = diff(prev, doc);
    if (Object.keys(p).length > 0) patches.push(p);
    prev = doc;
  }
  return patches;
}

/**
 * Cold `stateAt` on the two real histories: PostgreSQL with one-round-trip reads (`readRanges`),
 * PostgreSQL with point reads (the storage's `readRanges` hidden), LevelDB; rounds alternate the
 * three, medians; bytes per revision.
 */
async function historicalReads() {
  const rows = [];
  const { queries, stop } = countQueries();
  for (const file of FILES) {
    const patches = historyPatches(file);
    if (patches === null) continue;
    const count = scaled(patches.length, Math.min(patches.length, 20));
    const revs = patches.slice(0, count);
    const random = rng(7);
    const reads = Array.from({ length: scaled(100, 10) }, () => 1 + Math.floor(random() * revs.length));
    const schema = `sf_bench_${process.pid}_h`;
    const url = urlFor(schema);
    await dropPostgresStore(url);
    const pgStore = await openPostgresStore(url, { durability: 'buffered' });
    for (const patch of revs) await pgStore.publish({ changes: { 'cwd:/repo': patch } });
    await pgStore.close();
    const size = await admin(`SELECT pg_total_relation_size('"${schema}".sf_kv') AS bytes`);
    const dir = await tempDir('pg-hist');
    const level = await openStore(dir, { durability: 'buffered' });
    for (const patch of revs) await level.publish({ changes: { 'cwd:/repo': patch } });
    await level.close();
    const runs = [];
    for (let i = 0; i < REPEATS; i++) {
      const one = await coldReads(() => openPostgresStore(url, { cacheSize: 0 }), reads, queries);
      const points = await coldReads(() => pointReadingStore(url), reads, queries);
      const embedded = await coldReads(() => openStore(dir, { cacheSize: 0 }), reads, queries);
      runs.push({ one, points, embedded });
    }
    await dropPostgresStore(url);
    const levelBytes = await dirBytes(dir);
    await removeDir(dir);
    const med = (f) => median(runs.map(f));
    rows.push([file.replace('.jsonl', ''), revs.length, med((r) => r.one.ms), med((r) => r.one.queries), med((r) => r.points.ms), med((r) => r.points.queries), med((r) => r.embedded.ms), med((r) => r.one.ms / r.embedded.ms), med((r) => r.points.ms / r.embedded.ms), Number(size.rows[0].bytes) / revs.length, levelBytes / revs.length]);
  }
  stop();
  await report(
    'PostgreSQL: historical read (stateAt, cache off) and bytes per revision vs LevelDB',
    ['history', 'revisions', 'PostgreSQL stateAt ms', 'queries per read', 'PostgreSQL point reads ms', 'queries per read (point reads)', 'LevelDB stateAt ms', 'ratio PostgreSQL/LevelDB', 'ratio point reads/LevelDB', 'PostgreSQL bytes/revision', 'LevelDB bytes/revision'],
    rows,
    [
      `${REPEATS} rounds alternating the three (each a new store with the history cache off, reading the same random revisions); medians, each ratio the median of the per-round ratios.`,
      'PostgreSQL stateAt: one-round-trip reads (the storage\'s readRanges: the checkpoint, its pages and the tail in one statement); point reads: the same store with readRanges hidden from it (the read path before it: the revision record, then the checkpoint and the tail, then pages).',
      'PostgreSQL bytes: pg_total_relation_size of sf_kv (heap, TOAST and the primary-key index); LevelDB: the directory after a clean close.',
    ],
  );
}

/**
 * Read replicas (store-postgres README "Read replicas"), on a primary + hot standby made for
 * the run (`startPostgresPair`): cold `stateAt` and a 20-transition `transitions` range through
 * a store on the primary alone and through a store with the standby as its read replica, once
 * the standby has replayed everything; queries counted per server by wrapping `pg`'s
 * `Client.prototype.query` (counting only).
 */
async function replicaReads() {
  const pair = await startPostgresPair();
  if ('unavailable' in pair) return null;
  const sent = new Map();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(...a) {
    sent.set(this.port, (sent.get(this.port) ?? 0) + 1);
    return query.apply(this, a);
  };
  try {
    const url = `${pair.primaryUrl}?schema=sf_bench_replica`;
    const writer = await openPostgresStore(url, { durability: 'buffered' });
    const revs = scaled(2_000, 100);
    for (let i = 0; i < revs; i += 500) await writer.publishMany(Array.from({ length: Math.min(500, revs - i) }, (_, j) => ({ changes: { 'session:r': patchFor(i + j, 0) } })));
    await writer.close();
    const admin = new pg.Client({ connectionString: pair.primaryUrl });
    const standby = new pg.Client({ connectionString: pair.standbyUrl });
    await admin.connect();
    await standby.connect();
    const lsn = (await admin.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
    while (!(await standby.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn])).rows[0].done) await new Promise((r) => setTimeout(r, 20));
    await admin.end();
    await standby.end();
    const random = rng(11);
    const reads = Array.from({ length: scaled(200, 20) }, () => 1 + Math.floor(random() * (revs - 1)));
    const measure = async (store) => {
      const port = (u) => Number(new URL(u).port);
      const before = [sent.get(port(pair.primaryUrl)) ?? 0, sent.get(port(pair.standbyUrl)) ?? 0];
      const states = await time(async () => {
        for (const r of reads) await store.stateAt('session:r', r);
      });
      const ranges = await time(async () => {
        for (const r of reads) for await (const t of store.transitions({ from: Math.max(1, r - 19), to: r })) void t;
      });
      const after = [sent.get(port(pair.primaryUrl)) ?? 0, sent.get(port(pair.standbyUrl)) ?? 0];
      return { stateAt: states.ms / reads.length, range: ranges.ms / reads.length, primary: (after[0] - before[0]) / (2 * reads.length), standby: (after[1] - before[1]) / (2 * reads.length) };
    };
    const runs = [];
    for (let i = 0; i < REPEATS; i++) {
      const alone = await openPostgresStore(url, { cacheSize: 0 });
      const withReplica = await openPostgresStore(url, { cacheSize: 0, readReplicas: [pair.standbyUrl] });
      await alone.stateAt('session:r', 1);
      await withReplica.stateAt('session:r', 1);
      runs.push({ alone: await measure(alone), replica: await measure(withReplica) });
      await alone.close();
      await withReplica.close();
    }
    const med = (f) => median(runs.map(f));
    const rows = [
      ['primary only', med((r) => r.alone.stateAt), med((r) => r.alone.range), med((r) => r.alone.primary), med((r) => r.alone.standby), 1],
      ['read replica (caught up)', med((r) => r.replica.stateAt), med((r) => r.replica.range), med((r) => r.replica.primary), med((r) => r.replica.standby), med((r) => r.replica.stateAt / r.alone.stateAt)],
    ];
    await report(
      'PostgreSQL: historical reads from a read replica',
      ['store', 'stateAt ms', 'transitions (20) ms', 'queries to the primary per read', 'queries to the replica per read', 'ratio stateAt vs primary only'],
      rows,
      [
        `${revs} revisions of one stream; ${reads.length} random revisions read with the history cache off, each as stateAt and as a 20-transition range; ${REPEATS} rounds, medians.`,
        'Primary and standby: clusters made for the run on this machine (initdb, pg_basebackup -R, fsync off), loopback; the replica read pays its own round trips only, the primary is not asked.',
      ],
    );
    return rows;
  } finally {
    pg.Client.prototype.query = query;
    await pair.stop();
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'writer') await childWriter(args[0], Number(args[1]), Number(args[2]));
else if (mode === 'insert') await childInsert(args[0], Number(args[1]), Number(args[2]), args[3] === 'gap-free');
else if (mode === 'publish') await publishRates();
else if (mode === 'history') await historicalReads();
else if (mode === 'replica') await replicaReads();
else {
  await publishRates();
  await historicalReads();
  await replicaReads();
}
