/**
 * Bench 5 — LangGraph checkpointers: the same StateGraph run for 1,000 steps (× BENCH_SCALE)
 * with a growing state — a message list that grows by one message per step and a document
 * whose sections are edited one per step — checkpointed by StateflowSaver on LevelDB, by
 * StateflowSaver on PostgreSQL (STATEFLOW_TEST_POSTGRES, default
 * postgres://postgres@127.0.0.1:5432/test; its column is left out, saying so, when no server
 * answers), by LangGraph.js's SqliteSaver and by its PostgresSaver (same server), in the same process, one after the other. Reports bytes on disk,
 * per-step put time (all steps, the first and the last 10%, and
 * their ratio: whether a step costs more as the thread grows), per-step putWrites time, and getTuple of
 * random past checkpoints (plus StateflowSaver's first read after a reopen, which builds its
 * namespace index from the log). Every read is checked against the state that step wrote.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { HumanMessage } from '@langchain/core/messages';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, postgresUnavailable, testPostgresUrl } from '@stateflow/test-kit';
import { BENCH_DIR, REPEATS, dirBytes, median, removeDir, report, rng, tempDir, time } from './lib.mjs';
import { DELTA, SECTIONS, STEPS, buildGraph, sentence } from './langgraph-graph.mjs';

const READS = 200;
const THREAD = { configurable: { thread_id: 'bench' } };

/** Time every call of `saver[method]` (in ms), in call order. */
function instrument(saver, method) {
  const times = [];
  const original = saver[method].bind(saver);
  saver[method] = async (...args) => {
    const start = process.hrtime.bigint();
    try {
      return await original(...args);
    } finally {
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  };
  return times;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Run the graph on `saver`; returns per-call times and the checkpoint id of every step. */
async function run(saver) {
  const puts = instrument(saver, 'put');
  const writes = instrument(saver, 'putWrites');
  const graph = buildGraph(saver);
  const total = await time(() => graph.invoke({ messages: [new HumanMessage('start')] }, { ...THREAD, recursionLimit: STEPS + 10, durability: 'sync' }));
  if (total.value.step !== STEPS || total.value.messages.length !== STEPS + 1) throw new Error(`the graph ran ${total.value.step} steps`);
  if (puts.length !== STEPS + 2 || writes.length !== STEPS + 1) throw new Error(`${puts.length} puts and ${writes.length} putWrites for ${STEPS} steps`);
  const byStep = new Map();
  for await (const snapshot of graph.getStateHistory(THREAD)) if (typeof snapshot.values.step === 'number') byStep.set(snapshot.values.step, snapshot.config.configurable.checkpoint_id);
  return { puts, writes, totalMs: total.ms, byStep };
}

/**
 * Read `picks` (step numbers, 1..STEPS: the checkpoint after that many node runs; `null`: the
 * head, read without checkpoint_id) back and check each against what that step wrote.
 */
async function readBack(saver, byStep, picks) {
  return time(async () => {
    for (const pick of picks) {
      const step = pick ?? STEPS;
      const checkpoint_id = pick === null ? undefined : byStep.get(pick);
      const tuple = await saver.getTuple({ configurable: { ...THREAD.configurable, checkpoint_ns: '', checkpoint_id } });
      const values = tuple?.checkpoint.channel_values;
      // A delta channel's messages are not in the checkpoint (LangGraph replays them from the writes).
      const messagesWrong = !DELTA && (values?.messages.length !== step + 1 || values.messages.at(-1).content !== sentence(step - 1, 200));
      if (values?.step !== step || messagesWrong) {
        throw new Error(`getTuple of step ${step} returned the wrong state`);
      }
    }
  });
}

/**
 * A new process's first read of an old checkpoint: spawn bench/langgraph-first-read.mjs on the
 * closed store (`kind`: leveldb, postgres, sqlite; `place`: its directory, URL or file) and return
 * what it timed, `{ openMs, readMs }`.
 */
async function firstReadInNewProcess(kind, place, byStep, step) {
  const script = path.join(BENCH_DIR, 'langgraph-first-read.mjs');
  const { stdout } = await promisify(execFile)(process.execPath, [script, kind, place, byStep.get(step), String(step)], { cwd: BENCH_DIR });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

/** Bytes of every table (heap, TOAST, indexes) in PostgreSQL schema `schema`, no VACUUM. */
async function schemaBytes(schema) {
  return withAdmin(async (client) => {
    const { rows } = await client.query(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    return Number(rows[0].bytes);
  });
}

async function withAdmin(fn) {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Where a checkpointer lives, made new for each run: `open(reopen)` opens a saver on it (again;
 * `reopen`: for the reads, StateflowSaver's history cache off) as `{ saver, close }`, `bytes()`
 * is its size on disk once closed, `kind` and `place` what bench/langgraph-first-read.mjs opens,
 * `remove()` deletes it.
 */
function stateflowPlace(kind, place, openStore, durability, bytes, remove) {
  return {
    kind,
    place,
    async open(reopen) {
      const store = await openStore(reopen ? { cacheSize: 0 } : undefined);
      return { saver: new StateflowSaver(store, reopen ? undefined : { durability }), close: () => store.close() };
    },
    bytes,
    remove,
  };
}

async function levelPlace(durability) {
  const dir = await tempDir('langgraph-sf');
  const bytes = async () => {
    await (await openStore(dir)).close(); // reopening folds LevelDB's write-ahead log into tables
    return dirBytes(dir);
  };
  return stateflowPlace('leveldb', dir, (options) => openStore(dir, options), durability, bytes, () => removeDir(dir));
}

async function postgresPlace(durability) {
  const url = freshPostgresUrl('bench_lg');
  const schema = new URL(url).searchParams.get('schema');
  return stateflowPlace('postgres', url, (options) => openPostgresStore(url, options), durability, () => schemaBytes(schema), () => dropPostgresStore(url));
}

async function sqlitePlace() {
  const dir = await tempDir('langgraph-sqlite');
  const file = path.join(dir, 'checkpoints.sqlite');
  return {
    kind: 'sqlite',
    place: file,
    async open() {
      const saver = SqliteSaver.fromConnString(file);
      return { saver, close: async () => saver.db.close() }; // closing folds the WAL into the database file
    },
    bytes: () => dirBytes(dir),
    remove: () => removeDir(dir),
  };
}

/** LangGraph's PostgresSaver in a new schema of the test database (synchronous_commit on: each put is durable). */
async function postgresSaverPlace() {
  const schema = `bench_pgsaver_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE SCHEMA "${schema}"`));
  const url = new URL(testPostgresUrl());
  url.searchParams.set('schema', schema);
  return {
    kind: 'pgsaver',
    place: url.toString(),
    async open() {
      const saver = PostgresSaver.fromConnString(testPostgresUrl(), { schema });
      await saver.setup();
      return { saver, close: () => saver.end() };
    },
    bytes: () => schemaBytes(schema),
    remove: () => withAdmin((client) => client.query(`DROP SCHEMA "${schema}" CASCADE`)),
  };
}

/** Every checkpoint of the thread through `saver.list`, newest first, checked by count. */
async function listAll(saver) {
  return time(async () => {
    let count = 0;
    for await (const tuple of saver.list(THREAD)) if (tuple.checkpoint) count++;
    if (count !== STEPS + 2) throw new Error(`list returned ${count} checkpoints for ${STEPS + 2} puts`);
  });
}

/** One round on a new place: the run, its bytes, a new process's first read of `oldStep`, reads after a reopen. */
async function measure(makePlace, picks, oldStep) {
  const place = await makePlace();
  try {
    let opened = await place.open(false);
    const result = await run(opened.saver);
    await opened.close();
    const bytes = await place.bytes();
    const child = await firstReadInNewProcess(place.kind, place.place, result.byStep, oldStep);
    opened = await place.open(true);
    const firstHead = await readBack(opened.saver, result.byStep, [null]);
    const first = await readBack(opened.saver, result.byStep, [picks[0]]);
    const reads = await readBack(opened.saver, result.byStep, picks);
    const listed = await listAll(opened.saver);
    await opened.close();
    return { ...result, bytes, child, firstHeadMs: firstHead.ms, firstReadMs: first.ms, readMs: reads.ms, listMs: listed.ms };
  } finally {
    await place.remove();
  }
}

const ROUNDS = REPEATS;
const random = rng(7);
const picks = Array.from({ length: READS }, () => 1 + Math.floor(random() * STEPS));
/** The old checkpoint each round's new process reads: a random step in the first half of the run. */
const oldSteps = Array.from({ length: ROUNDS }, () => 1 + Math.floor(random() * (STEPS / 2)));
const head = (xs) => xs.slice(0, Math.ceil(xs.length * 0.1));
const tail = (xs) => xs.slice(Math.floor(xs.length * 0.9));
/** The figures of one run, keyed by row label. */
function figures(r) {
  return {
    'bytes on disk': r.bytes,
    'bytes on disk / step': r.bytes / STEPS,
    'put ms / step, all steps': mean(r.puts),
    'put ms / step, first 10% of steps': mean(head(r.puts)),
    'put ms / step, last 10% of steps': mean(tail(r.puts)),
    'put growth: last 10% ÷ first 10% of steps': mean(tail(r.puts)) / mean(head(r.puts)),
    'putWrites ms / call, last 10% ÷ first 10%': mean(tail(r.writes)) / mean(head(r.writes)),
    'putWrites ms / call': mean(r.writes),
    'whole run ms / step (graph + saver)': r.totalMs / STEPS,
    'getTuple of a random past checkpoint, ms': r.readMs / READS,
    'first getTuple after reopen: the head (a resume), ms': r.firstHeadMs,
    'then a random past checkpoint, ms': r.firstReadMs,
    'new process: open the store, ms': r.child.openMs,
    'new process: first getTuple of an old checkpoint, ms': r.child.readMs,
    [`list the whole thread (${STEPS + 2} checkpoints), ms`]: r.listMs,
  };
}
// Alternate the savers and report each figure's median over the rounds: on a shared machine,
// load that comes and goes during one saver's run must not decide a ratio.
const noPostgres = await postgresUnavailable();
const columns = [
  ['sf', 'StateflowSaver fsync', () => levelPlace('fsync')],
  ['buffered', 'StateflowSaver buffered', () => levelPlace('buffered')],
  ...(noPostgres === null ? [['pg', 'StateflowSaver PostgreSQL fsync', () => postgresPlace('fsync')]] : []),
  ['lg', 'SqliteSaver', sqlitePlace],
  ...(noPostgres === null ? [['pgsaver', 'PostgresSaver', postgresSaverPlace]] : []),
].filter(([key]) => !process.env.BENCH_LANGGRAPH_COLUMNS || process.env.BENCH_LANGGRAPH_COLUMNS.split(',').includes(key));
const rounds = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [key, , makePlace] of columns) (rounds[key] ??= []).push(figures(await measure(makePlace, picks, oldSteps[round])));
}
const best = Object.fromEntries(Object.entries(rounds).map(([key, fs]) => [key, Object.fromEntries(Object.keys(fs[0]).map((k) => [k, median(fs.map((f) => f[k]))]))]));
const calls = { puts: STEPS + 2, writes: STEPS + 1 };
const stateflowColumns = best.lg ? columns.filter(([key]) => key !== 'lg' && key !== 'pgsaver') : [];
const versusPostgresSaver = best.pg && best.pgsaver;
const rows = Object.keys(Object.values(best)[0]).map((label) => [
  label,
  ...columns.map(([key]) => best[key][label]),
  ...stateflowColumns.map(([key]) => best[key][label] / best.lg[label]),
  ...(versusPostgresSaver ? [best.pg[label] / best.pgsaver[label]] : []),
]);
await report(
  `LangGraph: StateflowSaver (LevelDB, PostgreSQL) vs SqliteSaver and PostgresSaver, one graph run of growing state${DELTA ? ', messages in a DeltaChannel' : ''}`,
  ['metric', ...columns.map(([, title]) => title), ...stateflowColumns.map(([, title]) => `ratio ${title.replace('StateflowSaver ', '')}/sqlite`), ...(versusPostgresSaver ? ['ratio PostgreSQL fsync/PostgresSaver'] : [])],
  rows,
  [
    ...(DELTA ? ['BENCH_LANGGRAPH_MESSAGES=delta: the messages channel is LangGraph\'s DeltaChannel (messagesDeltaReducer, a snapshot every 100 updates), so a put carries the step\'s new messages, not the list; reads check the step count (the messages are rebuilt from the writes by LangGraph, not in the checkpoint).'] : []),
    `${STEPS} steps of one node: each appends a 200-character AIMessage (the list ends at ${STEPS + 1} messages) and rewrites one of ${SECTIONS} 200-character sections of a document channel; graph.invoke with durability "sync", so puts do not overlap the node.`,
    'Growth rows: a configuration\'s own mean of its last 10% of calls over its first 10% (1.0: flat in thread length); their ratio columns divide that by SqliteSaver\'s own growth.',
    `Per step LangGraph calls putWrites once (the node's writes) and put once: ${calls.puts} puts and ${calls.writes} putWrites calls per run on each saver.`,
    `${ROUNDS} rounds alternating the ${columns.length}, each on a new store; every figure is that configuration's median over its rounds (the machine is shared: load that comes and goes must not decide a ratio).`,
    'StateflowSaver publishes one net patch per put and per putWrites (store checkpoint every 64 revisions): "fsync" syncs each to disk before it resolves (LevelDB sync: true; PostgreSQL synchronous_commit on), as SqliteSaver does (better-sqlite3, WAL, synchronous FULL); "buffered" is the store\'s default (survives a process crash, not an OS crash).',
    'Bytes: every file of the store directory after close (LevelDB reopened once so its log is folded into tables; SQLite closed so its WAL is checkpointed); PostgreSQL: pg_total_relation_size (heap, TOAST, indexes) of every table in the store\'s schema, no VACUUM, on the same machine (loopback TCP).',
    noPostgres === null
      ? 'PostgreSQL: a new schema per run on the server of STATEFLOW_TEST_POSTGRES, dropped after it; PostgresSaver (@langchain/langgraph-checkpoint-postgres, its own pool, synchronous_commit on as the server default, so each put and putWrites is durable) in a schema of its own on the same server. Its ratio column divides StateflowSaver PostgreSQL fsync by PostgresSaver.'
      : `PostgreSQL column left out: ${noPostgres}.`,
    `Reads: ${READS} random steps read back by checkpoint_id after a reopen (StateflowSaver with the store's history cache off), each checked against that step's messages and step count, then one list of the whole thread (every checkpoint, newest first). Before them, the head (no checkpoint_id, as a resume reads it) and then one random past checkpoint are each timed alone: StateflowSaver reads its namespace index from the newest end of the stream's log, as far back as each read needs.`,
    `New process: after each run the store is closed and a child process (bench/langgraph-first-read.mjs) opens it (LevelDB directory, PostgreSQL schema, SQLite file) and times its first getTuple of one old checkpoint (round r reads step ${oldSteps.join(', ')}; the same step on every saver), checked against what that step wrote.`,
  ],
);
