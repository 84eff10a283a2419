/**
 * Bench — PostgreSQL backend (store-postgres README "LevelDB or PostgreSQL"), ratios in one run
 * on the same server: publish rate of a single writer and of 8 concurrent writers across 2
 * processes, against a raw single-row INSERT loop on the same server (the physical limit: one
 * committed row per transaction, as many connections as writers) and against the LevelDB
 * backend; `stateAt` on the two real histories against LevelDB; bytes per revision.
 * Needs PostgreSQL at STATEFLOW_TEST_POSTGRES (default postgres://postgres@127.0.0.1:5432/test).
 *
 *   node bench/postgres.mjs            # BENCH_SCALE=0.1 for a quick run
 *   node bench/postgres.mjs writer URL N LANES   (the child of the 2-process rows)
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { diff } from '@stateflow/core';
import { openStore } from '@stateflow/store';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { BENCH_DIR, dirBytes, removeDir, report, rng, scaled, tempDir, time } from './lib.mjs';

const SELF = fileURLToPath(import.meta.url);
const run = promisify(execFile);
const BASE = process.env.STATEFLOW_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const HISTORIES = path.resolve(BENCH_DIR, '..', '..', 'shared', 'data', 'histories');
const FILES = ['eslint-package-json.jsonl', 'matrix-react-sdk-en_EN-json.jsonl'];
const urlFor = (schema) => {
  const url = new URL(BASE);
  url.searchParams.set('schema', schema);
  return url.toString();
};
const patchFor = (i, lane) => ({ tactics: { [`k${i % 50}`]: { i, lane, text: 'x'.repeat(100) } } });

/** Child: `lanes` concurrent publish loops of `n` publishes each on the PostgreSQL store at `url`. */
async function childWriter(url, n, lanes) {
  const store = await openPostgresStore(url, { durability: 'fsync', maxConnections: lanes + 2 });
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    for (let i = 0; i < n; i++) await store.publish({ changes: { [`session:w${process.pid}-${lane}`]: patchFor(i, lane) } });
  }));
  await store.close();
}

/** Child: `lanes` concurrent raw INSERT loops of `n` single-row transactions each. */
async function childInsert(schema, n, lanes) {
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    const client = new pg.Client({ connectionString: BASE });
    await client.connect();
    const value = Buffer.from(JSON.stringify(patchFor(0, lane)));
    for (let i = 0; i < n; i++) await client.query(`INSERT INTO "${schema}".raw (k, v) VALUES ($1, $2)`, [Buffer.from(`${process.pid}/${lane}/${i}`), value]);
    await client.end();
  }));
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

/** Operations per second of `children` processes running `args`, measured from start to the last exit. */
async function processes(children, args) {
  const { ms } = await time(() => Promise.all(Array.from({ length: children }, () => run(process.execPath, [SELF, ...args], { maxBuffer: 1 << 20 }))));
  return ms;
}

async function publishRates() {
  const n = scaled(1_000, 20);
  const rows = [];
  // Single writer, one process.
  const schema1 = `sf_bench_${process.pid}_1`;
  await dropPostgresStore(urlFor(schema1));
  const store = await openPostgresStore(urlFor(schema1), { durability: 'fsync' });
  const pgSingle = await time(async () => {
    for (let i = 0; i < n; i++) await store.publish({ changes: { 'session:w': patchFor(i, 0) } });
  });
  await store.close();
  await admin(`DROP SCHEMA IF EXISTS raw1 CASCADE; CREATE SCHEMA raw1; CREATE TABLE raw1.raw (k bytea PRIMARY KEY, v bytea NOT NULL)`);
  const rawSingle = await time(() => childInsert('raw1', n, 1));
  const dir = await tempDir('pg-level');
  const level = await openStore(dir, { durability: 'fsync' });
  const levelSingle = await time(async () => {
    for (let i = 0; i < n; i++) await level.publish({ changes: { 'session:w': patchFor(i, 0) } });
  });
  await level.close();
  await removeDir(dir);
  const rate = (ops, ms) => (ops / ms) * 1000;
  rows.push(['single writer (fsync)', n, rate(n, pgSingle.ms), rate(n, rawSingle.ms), rate(n, pgSingle.ms) / rate(n, rawSingle.ms), rate(n, levelSingle.ms), rate(n, pgSingle.ms) / rate(n, levelSingle.ms)]);

  // 8 concurrent writers across 2 processes (4 lanes each).
  const per = Math.max(5, Math.round(n / 8));
  const schema8 = `sf_bench_${process.pid}_8`;
  await dropPostgresStore(urlFor(schema8));
  await (await openPostgresStore(urlFor(schema8))).close();
  const pg8 = await processes(2, ['writer', urlFor(schema8), String(per), '4']);
  await admin(`DROP SCHEMA IF EXISTS raw8 CASCADE; CREATE SCHEMA raw8; CREATE TABLE raw8.raw (k bytea PRIMARY KEY, v bytea NOT NULL)`);
  const raw8 = await processes(2, ['insert', 'raw8', String(per), '4']);
  const dir8 = await tempDir('pg-level8');
  const level8 = await openStore(dir8, { durability: 'fsync' });
  const levelConcurrent = await time(() => Promise.all(Array.from({ length: 8 }, async (_, lane) => {
    for (let i = 0; i < per; i++) await level8.publish({ changes: { [`session:w${lane}`]: patchFor(i, lane) } });
  })));
  await level8.close();
  await removeDir(dir8);
  const total = per * 8;
  rows.push(['8 writers, 2 processes (fsync)', total, rate(total, pg8), rate(total, raw8), rate(total, pg8) / rate(total, raw8), rate(total, levelConcurrent.ms), rate(total, pg8) / rate(total, levelConcurrent.ms)]);
  for (const s of [schema1, schema8]) await dropPostgresStore(urlFor(s));
  await admin('DROP SCHEMA IF EXISTS raw1 CASCADE; DROP SCHEMA IF EXISTS raw8 CASCADE');
  await report(
    'PostgreSQL: publish rate vs a raw single-row INSERT loop and vs LevelDB',
    ['scenario', 'publishes', 'PostgreSQL publish/s', 'raw INSERT/s', 'ratio publish/INSERT', 'LevelDB publish/s', 'ratio PostgreSQL/LevelDB'],
    rows,
    [
      'raw INSERT: one row (key + the JSON of the same patch) per autocommitted transaction, from as many connections as writers: the physical limit of one durable commit per transition.',
      'LevelDB: the same publishes on the embedded store (8 writers in one process, since one process holds a LevelDB directory).',
      'PostgreSQL serialises every writer of one store on its advisory lock (gap-free seq, one hash chain), so 8 writers share one commit stream; the raw INSERTs do not.',
    ],
  );
}

async function historicalReads() {
  const rows = [];
  for (const file of FILES) {
    const full = path.join(HISTORIES, file);
    if (!existsSync(full)) {
      if (process.env.CI === 'true') throw new Error(`${full} is missing under CI`);
      console.warn(`SKIPPED: ${full} not found (the shared histories live beside the checkout)`);
      continue;
    }
    const docs = readFileSync(full, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l).doc);
    const patches = [];
    let prev = {};
    for (const doc of docs) {
      const p = diff(prev, doc);
      if (Object.keys(p).length > 0) patches.push(p);
      prev = doc;
    }
    const count = scaled(patches.length, Math.min(patches.length, 20));
    const revs = patches.slice(0, count);
    const random = rng(7);
    const reads = Array.from({ length: scaled(100, 10) }, () => 1 + Math.floor(random() * revs.length));
    const schema = `sf_bench_${process.pid}_h`;
    const url = urlFor(schema);
    await dropPostgresStore(url);
    let pgStore = await openPostgresStore(url, { durability: 'buffered' });
    for (const patch of revs) await pgStore.publish({ changes: { 'cwd:/repo': patch } });
    await pgStore.close();
    pgStore = await openPostgresStore(url, { cacheSize: 0 });
    const pgRead = await time(async () => {
      for (const r of reads) await pgStore.stateAt('cwd:/repo', r);
    });
    await pgStore.close();
    const size = await admin(`SELECT pg_total_relation_size('"${schema}".sf_kv') AS bytes`);
    await dropPostgresStore(url);
    const dir = await tempDir('pg-hist');
    let level = await openStore(dir, { durability: 'buffered' });
    for (const patch of revs) await level.publish({ changes: { 'cwd:/repo': patch } });
    await level.close();
    level = await openStore(dir, { cacheSize: 0 });
    const levelRead = await time(async () => {
      for (const r of reads) await level.stateAt('cwd:/repo', r);
    });
    await level.close();
    const levelBytes = await dirBytes(dir);
    await removeDir(dir);
    const pgBytes = Number(size.rows[0].bytes);
    rows.push([file.replace('.jsonl', ''), revs.length, pgRead.ms / reads.length, levelRead.ms / reads.length, pgRead.ms / levelRead.ms, pgBytes / revs.length, levelBytes / revs.length]);
  }
  await report(
    'PostgreSQL: historical read (stateAt, cache off) and bytes per revision vs LevelDB',
    ['history', 'revisions', 'PostgreSQL stateAt ms', 'LevelDB stateAt ms', 'ratio PostgreSQL/LevelDB', 'PostgreSQL bytes/revision', 'LevelDB bytes/revision'],
    rows,
    ['PostgreSQL bytes: pg_total_relation_size of sf_kv (heap, TOAST and the primary-key index); LevelDB: the directory after a clean close.'],
  );
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'writer') await childWriter(args[0], Number(args[1]), Number(args[2]));
else if (mode === 'insert') await childInsert(args[0], Number(args[1]), Number(args[2]));
else {
  await publishRates();
  await historicalReads();
}
