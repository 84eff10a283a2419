/**
 * Bench — retention (store README "Retention"): a workload shaped like the production case of an
 * unbounded checkpointer table — one fresh LangGraph thread per run (StateflowSaver, CHECKPOINTS
 * checkpoints of a growing message list each, with their writes), RUNS runs over 30 simulated
 * days, 95 % of them older than 7 days — on LevelDB and on PostgreSQL
 * (STATEFLOW_TEST_POSTGRES; its rows are left out, saying so, when no server answers). The
 * store's clock is simulated: nothing waits for days.
 *
 * Then the policy `langgraph*` `{ idleMs: 7d }` (a thread TTL) and one retention run with an
 * archive. Reported: bytes on disk after ÷ before (LevelDB: every file after a close; the run ends
 * with `reclaimSpace`, LevelDB's compaction of the whole key range; PostgreSQL: pg_total_relation_size of the
 * schema's tables after VACUUM FULL, before and after, and after a plain VACUUM), the run's time
 * per removed revision, and p99 publish latency of a writer on another stream during the run ÷
 * the same writer with nothing else running. Checks: every kept revision readable, the store's
 * audit clean, the archive's audit clean and each archived state byte-identical (canonical JSON)
 * to what the store served before the run.
 */
import pg from 'pg';
import { ClassicLevel } from 'classic-level';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { StateflowSaver } from '@stateflow/langgraph';
import { auditArchive, openArchive, retain, setRetention } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, postgresUnavailable, testPostgresUrl } from '@stateflow/test-kit';
import path from 'node:path';
import { REPEATS, dirBytes, fmt, removeDir, report, scaled, tempDir } from './lib.mjs';

const DAY = 86_400_000;
const RUNS = scaled(300, 40);
const CHECKPOINTS = 8;
/** Bytes of the message each step adds (a tool result or an answer). */
const MESSAGE_BYTES = Number(process.env.RETENTION_MESSAGE_BYTES ?? '2048');
const START = Date.parse('2026-06-01T00:00:00Z');

/** Thread i's start time: 95 % of the runs in days 0…23 (older than 7 days after day 30), 5 % in the last 7. */
function runStart(i) {
  const old = Math.round(RUNS * 0.95);
  return i < old ? START + Math.floor((i / old) * 23 * DAY) : START + 23 * DAY + Math.floor(((i - old) / (RUNS - old)) * 7 * DAY);
}

async function writeRuns(store, clock) {
  const saver = new StateflowSaver(store);
  for (let i = 0; i < RUNS; i++) {
    clock.now = runStart(i);
    let config = { configurable: { thread_id: `run-${i}` } };
    const messages = [];
    for (let step = 1; step <= CHECKPOINTS; step++) {
      messages.push({ role: step % 2 ? 'tool' : 'assistant', content: `step ${step} of run ${i}: ${'lorem ipsum dolor sit amet '.repeat(MESSAGE_BYTES / 27)}` });
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(step), channel_values: { messages: [...messages] }, channel_versions: { messages: step } };
      config = await saver.put(config, checkpoint, { source: 'loop', step, parents: {} }, { messages: step });
      await saver.putWrites(config, [['messages', step]], `task-${step}`);
      clock.now += 60_000;
    }
  }
}

/** Publish latencies (ms) of `n` one-key publishes on `stream`, one after another. */
async function publishLatencies(store, stream, n, until = () => true) {
  const out = [];
  for (let i = 0; i < n || !until(); i++) {
    const start = process.hrtime.bigint();
    await store.publish({ changes: { [stream]: { i } } });
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

/** JSON with every object's keys sorted: equal text ⇔ equal JSON value. */
function canonicalize(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalize(value[k])}`).join(',')}}`;
  return JSON.stringify(value);
}

function p99(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

/** Canonical states of every revision of the governed streams, before the run. */
async function statesBefore(store) {
  const out = new Map();
  for (const head of await store.streams()) {
    if (!head.stream.startsWith('langgraph')) continue;
    for (let rev = head.origin; rev <= head.rev; rev++) out.set(`${head.stream}@${rev}`, canonicalize(await store.stateAt(head.stream, rev)));
  }
  return out;
}

const step = (what) => process.stderr.write(`retention bench: ${what} (${new Date().toISOString()})\n`);

/** Phase 1: the run alone — bytes before and after, the checks. */
async function measureBytes(place) {
  const clock = { now: START };
  let store = await place.open({ clock: () => new Date(clock.now) });
  step(`${place.kind}: writing ${RUNS} runs`);
  await writeRuns(store, clock);
  clock.now = START + 30 * DAY;
  await setRetention(store, 'langgraph*', { idleMs: 7 * DAY });
  step('reading every revision');
  const before = await statesBefore(store);
  store = await place.reopen(store, { clock: () => new Date(clock.now) });
  const bytesBefore = await place.bytes(store);
  step('retention run');
  const archive = path.join(place.tmp, 'retention-archive.jsonl');
  const started = process.hrtime.bigint();
  const run = await retain(store, { now: clock.now, archive });
  const runMs = Number(process.hrtime.bigint() - started) / 1e6;
  step('checks');
  // Every kept revision readable; the archive serves the removed ones as they were.
  let kept = 0;
  let identical = true;
  const opened = await openArchive(archive);
  for (const [key, state] of before) {
    const [stream, rev] = [key.slice(0, key.lastIndexOf('@')), Number(key.slice(key.lastIndexOf('@') + 1))];
    const head = await store.head(stream);
    if (rev >= head.origin) {
      await store.stateAt(stream, rev);
      kept++;
    } else if (canonicalize(opened.stateAt(stream, rev)) !== state) identical = false;
  }
  const audit = (await store.audit()).problems.length === 0;
  const archiveAudit = (await auditArchive(store, archive)).problems.length === 0;
  const plain = await place.bytes(store, { full: false });
  store = await place.reopen(store, { clock: () => new Date(clock.now) });
  const bytesAfter = await place.bytes(store);
  const transitions = store.lastSeq();
  const families = await place.families(store);
  await place.close(store);
  return { bytesBefore, bytesAfter, plain, run, runMs, kept, identical, audit, archiveAudit, transitions, families };
}

/** Phase 2, on a store of its own with the same workload: p99 publish of a writer on another stream, idle and during a run. */
async function measureLatency(place) {
  const clock = { now: START };
  const store = await place.open({ clock: () => new Date(clock.now) });
  step(`${place.kind}: writing ${RUNS} runs again, for the latency phase`);
  await writeRuns(store, clock);
  clock.now = START + 30 * DAY;
  await setRetention(store, 'langgraph*', { idleMs: 7 * DAY });
  const before = await publishLatencies(store, 'bench:writer', 200);
  let done = false;
  const runPromise = retain(store, { now: clock.now }).finally(() => (done = true));
  const during = await publishLatencies(store, 'bench:writer', 20, () => done);
  await runPromise;
  // Idle: the same writer before the run and, as many publishes again, after it — so that a
  // quiet or a busy moment of the (shared) machine weighs on both sides alike.
  const idle = [...before, ...(await publishLatencies(store, 'bench:writer', Math.max(200, during.length)))];
  await place.close(store);
  return { idle: p99(idle), during: p99(during), duringCount: during.length };
}

/** The latency phase REPEATS times, each on a fresh store: the run with the median ratio. */
async function medianLatency(makePlace) {
  const runs = [];
  for (let i = 0; i < REPEATS; i++) runs.push(await measureLatency(await makePlace()));
  runs.sort((a, b) => a.during / a.idle - b.during / b.idle);
  return { ...runs[Math.floor(runs.length / 2)], ratios: runs.map((r) => r.during / r.idle) };
}

async function leveldbPlace() {
  const tmp = await tempDir('retention');
  const dir = path.join(tmp, 'store');
  return {
    kind: 'LevelDB',
    tmp,
    open: (options) => openStore(dir, options),
    async reopen(store, options) {
      await store.close();
      return openStore(dir, options);
    },
    bytes: () => dirBytes(dir),
    /** Records left, by key family (its first byte): count and key + value bytes (before LevelDB's compression). */
    async families(store) {
      await store.close();
      const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
      const out = new Map();
      for await (const [k, v] of db.iterator()) {
        const family = String.fromCharCode(k[0]);
        const row = out.get(family) ?? { count: 0, bytes: 0 };
        row.count++;
        row.bytes += k.length + v.length;
        out.set(family, row);
      }
      await db.close();
      return out;
    },
    async close(store) {
      await store.close();
      await removeDir(tmp);
    },
  };
}

async function postgresPlace() {
  const tmp = await tempDir('retention-pg');
  const url = freshPostgresUrl('bench_ret');
  const schema = new URL(url).searchParams.get('schema');
  const admin = async (sql, params = []) => {
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    kind: 'PostgreSQL',
    tmp,
    open: (options) => openPostgresStore(url, options),
    reopen: async (store) => store,
    async bytes(_store, { full = true } = {}) {
      const tables = await admin(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, [schema]);
      for (const { relname } of tables) await admin(`VACUUM ${full ? 'FULL ' : ''}"${schema}"."${relname}"`);
      const [{ bytes }] = await admin(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, [schema]);
      return Number(bytes);
    },
    /** Rows left, by key family (the key's first byte): count and key + value bytes (before TOAST compression and row overhead). */
    async families() {
      const rows = await admin(`SELECT chr(get_byte(k, 0)) AS family, count(*)::int AS count, sum(octet_length(k) + octet_length(v))::bigint AS bytes FROM "${schema}".sf_kv GROUP BY 1`);
      return new Map(rows.map((r) => [r.family, { count: r.count, bytes: Number(r.bytes) }]));
    },
    async close(store) {
      await store.close();
      await dropPostgresStore(url);
      await removeDir(tmp);
    },
  };
}

const pgDown = await postgresUnavailable();
const kinds = [leveldbPlace, ...(pgDown === null ? [postgresPlace] : [])];
const rows = [];
const notes = [];
const familyRows = [];
/** What each key family holds (keys.ts). */
const FAMILY_NAMES = { L: 'L transitions and pruned stubs', S: 'S seq → rev index', R: 'R revisions', H: 'H heads', C: 'C checkpoints', P: 'P checkpoint pages', I: 'I idempotency ids', J: 'J principal ids', M: 'M meta' };
for (const makePlace of kinds) {
  const place = await makePlace();
  const m = { ...(await measureBytes(place)), ...(await medianLatency(makePlace)) };
  const removed = m.run.total.revisions;
  rows.push([`${place.kind}: bytes on disk after a 7-day retention run ÷ before (${fmt(m.bytesBefore)} → ${fmt(m.bytesAfter)} B; ${fmt(m.transitions)} transitions, each pruned one kept as a stub)`, m.bytesAfter / m.bytesBefore, '≤ 0.1']);
  if (place.kind === 'PostgreSQL') rows.push([`PostgreSQL: after a plain VACUUM (space reusable, files not shrunk) ÷ before`, m.plain / m.bytesBefore, 'reported']);
  rows.push([`${place.kind}: run time per removed revision, ms (${fmt(removed)} revisions of ${m.run.total.streams} streams in ${fmt(m.runMs)} ms)`, m.runMs / removed, 'reported']);
  rows.push([`${place.kind}: p99 publish during the run ÷ idle (median of ${m.ratios.map((r) => fmt(r)).join(', ')}; ${fmt(m.during)} / ${fmt(m.idle)} ms, ${m.duringCount} publishes during)`, m.during / m.idle, '≤ 2']);
  for (const [family, { count, bytes }] of [...m.families].sort()) familyRows.push([place.kind, FAMILY_NAMES[family] ?? family, count, bytes]);
  rows.push([`${place.kind}: every kept revision readable (${fmt(m.kept)}) / audit clean / archive audit clean and re-read byte-identical`, `yes / ${m.audit ? 'yes' : 'NO'} / ${m.archiveAudit && m.identical ? 'yes' : 'NO'}`, 'yes / yes / yes']);
}
if (pgDown !== null) notes.push(`PostgreSQL rows left out: ${pgDown}`);
notes.push(`${RUNS} runs (one fresh LangGraph thread each, ${CHECKPOINTS} checkpoints with their writes, each step adding a message of about ${MESSAGE_BYTES} bytes), 30 simulated days, 95 % of threads older than 7 days; policy langgraph* { idleMs: 7d }; one run with an archive.`);
notes.push('LevelDB bytes: every file of the directory after a close (the run ends with reclaimSpace: a LevelDB compaction of the whole key range). PostgreSQL bytes: pg_total_relation_size of the schema\'s tables after VACUUM FULL (plain VACUUM makes the space reusable without returning it).');
notes.push(`The latency rows come from further stores with the same workload (${REPEATS} of them, the median ratio shown): a writer publishing one-key transitions on another stream while the run goes, against the same writer idle — 200 publishes before the run and as many as during it after — so its transitions do not count in the bytes rows.`);
await report('Retention: what stays after the run, by key family', ['backend', 'key family', 'records', 'key + value bytes'], familyRows, ['Logical bytes of the records left after the run (LevelDB before its block compression, PostgreSQL before row overhead).']);
await report('Retention: a 7-day thread TTL over 30 simulated days of LangGraph runs', ['figure', 'value', 'goal'], rows, notes);
