/**
 * Bench — an application under 200 concurrent clients (issue 40; langgraph#7259 measured 1,295
 * requests/s without LangGraph's Postgres checkpointer and 199 with it, 0.15×): an HTTP service
 * in a process of its own answers a chat-like turn — read the thread, append the user's message
 * and a 200-character reply, write the state — as a LangGraph StateGraph compiled with one of
 * three checkpointers, all on one PostgreSQL server:
 *
 * - `memory`: LangGraph's MemorySaver (state in the process: the ceiling, no store);
 * - `stateflow`: StateflowSaver over `openPostgresStore` (durability fsync: synchronous_commit on);
 * - `pgsaver`: `@langchain/langgraph-checkpoint-postgres`'s PostgresSaver (server default
 *   synchronous_commit on: durable too).
 *
 * 200 clients in this process (keep-alive connections, one thread each, closed loop) send turns
 * for a fixed window after one untimed turn each; requests/s and latency percentiles per way,
 * rounds alternating the ways. Beside them, `pgbench -N` TPS at 1, 8 and 32 clients on the same
 * server (its own database, `pgbench -i` first): the machine's reference for durable commits.
 *
 *   node bench/app-throughput.mjs                  # BENCH_SCALE shortens the window
 *   node bench/app-throughput.mjs serve MODE PLACE (the server child; prints "listening PORT")
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { StateflowSaver } from '@stateflow/langgraph';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, postgresUnavailable, testPostgresUrl } from '@stateflow/test-kit';
import { REPEATS, median, report, scaled } from './lib.mjs';

const SELF = fileURLToPath(import.meta.url);
const CLIENTS = 200;
const WINDOW_MS = scaled(8_000, 1_500);
const run = promisify(execFile);

/** The service's graph: one node that answers the thread's last message. */
function buildGraph(checkpointer) {
  return new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => {
      const last = state.messages.at(-1).content;
      return { messages: [new AIMessage(`reply ${state.messages.length}: ${last}`.padEnd(200, '.'))] };
    })
    .addEdge(START, 'reply')
    .addEdge('reply', END)
    .compile({ checkpointer });
}

/** The checkpointer of `mode` on `place` (a store URL or a PostgresSaver schema), and how to close it. */
async function openCheckpointer(mode, place) {
  if (mode === 'memory') return { saver: new MemorySaver(), close: async () => {} };
  if (mode === 'stateflow') {
    const store = await openPostgresStore(place, { durability: 'fsync' });
    return { saver: new StateflowSaver(store), close: () => store.close() };
  }
  const saver = PostgresSaver.fromConnString(testPostgresUrl(), { schema: place });
  await saver.setup();
  return { saver, close: () => saver.end() };
}

/** Child: the HTTP service. POST /turn/<thread> with the user's text answers `{ messages }`, the thread's length after the turn. */
async function serve(mode, place) {
  const { saver, close } = await openCheckpointer(mode, place);
  const graph = buildGraph(saver);
  const server = http.createServer(async (req, res) => {
    try {
      let text = '';
      for await (const chunk of req) text += chunk;
      const thread_id = decodeURIComponent(req.url.slice('/turn/'.length));
      const out = await graph.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id } });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messages: out.messages.length }));
    } catch (error) {
      res.writeHead(500).end(String(error?.stack ?? error));
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
  process.stdin.on('end', () => server.close(() => close().then(() => process.exit(0))));
  process.stdin.resume();
}

/** One turn of thread `thread` on the service at `port`: the thread's length it answered. */
function turn(agent, port, thread, text) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/turn/${thread}`, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body).messages) : reject(new Error(`HTTP ${res.statusCode}: ${body}`))));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * One round of `mode`: a new place, the service spawned on it, CLIENTS closed loops for the
 * window (each thread's length checked: two messages more per turn), the place removed.
 */
async function round(mode) {
  const schema = `bench40_app_${randomBytes(5).toString('hex')}`;
  const url = freshPostgresUrl('bench40_app');
  const place = mode === 'stateflow' ? url : schema;
  if (mode === 'pgsaver') await admin(`CREATE SCHEMA "${schema}"`);
  const child = spawn(process.execPath, [SELF, 'serve', mode, place], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`service exited ${code}`)));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      const m = /listening (\d+)/.exec(d);
      if (m) resolve(Number(m[1]));
    });
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  try {
    const threads = Array.from({ length: CLIENTS }, (_, i) => `c${i}`);
    await Promise.all(threads.map(async (t) => {
      if ((await turn(agent, port, t, `hello from ${t}`)) !== 2) throw new Error(`thread ${t} did not start empty`);
    }));
    const latencies = [];
    const deadline = performance.now() + WINDOW_MS;
    const start = performance.now();
    await Promise.all(threads.map(async (t) => {
      for (let n = 2; performance.now() < deadline; ) {
        const sent = performance.now();
        const length = await turn(agent, port, t, `turn ${n} of ${t}`);
        latencies.push(performance.now() - sent);
        if (length !== n + 2) throw new Error(`thread ${t} has ${length} messages, expected ${n + 2}`);
        n = length;
      }
    }));
    const elapsed = performance.now() - start;
    latencies.sort((a, b) => a - b);
    const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
    return { rps: (latencies.length / elapsed) * 1000, p50: pct(0.5), p99: pct(0.99), requests: latencies.length };
  } finally {
    agent.destroy();
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve()));
    if (mode === 'stateflow') await dropPostgresStore(url);
    if (mode === 'pgsaver') await admin(`DROP SCHEMA "${schema}" CASCADE`);
  }
}

async function admin(sql) {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** pgbench -N (no updates of the branch/teller rows: inserts and account updates) TPS at `clients`, on database `db`. */
async function pgbench(bindir, conn, db, clients, seconds) {
  const { stdout } = await run(`${bindir}/pgbench`, [...conn, '-N', '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(seconds), db]);
  const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  if (!m) throw new Error(`pgbench printed no tps:\n${stdout}`);
  return Number(m[1]);
}

async function pgbenchRows() {
  const bindir = (await run('pg_config', ['--bindir'])).stdout.trim();
  const server = new URL(testPostgresUrl());
  const conn = ['-h', server.hostname, '-p', server.port || '5432', '-U', decodeURIComponent(server.username || 'postgres')];
  const db = 'bench40_pgbench';
  await admin(`DROP DATABASE IF EXISTS ${db}`);
  await admin(`CREATE DATABASE ${db}`);
  try {
    await run(`${bindir}/pgbench`, [...conn, '-i', '-q', '-s', '10', db]);
    const seconds = Math.max(3, Math.round(WINDOW_MS / 1000));
    const rows = [];
    for (const clients of [1, 8, 32]) {
      const tps = [];
      for (let i = 0; i < REPEATS; i++) tps.push(await pgbench(bindir, conn, db, clients, seconds));
      rows.push([`pgbench -N, ${clients} client${clients > 1 ? 's' : ''}`, median(tps)]);
    }
    return { rows, seconds };
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${db}`);
  }
}

async function main() {
  const unavailable = await postgresUnavailable();
  if (unavailable !== null) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL unavailable under CI: ${unavailable}`);
    console.warn(`SKIPPED: app-throughput needs PostgreSQL (${unavailable})`);
    return;
  }
  const ways = [['memory', 'no store (MemorySaver)'], ['stateflow', 'StateflowSaver on PostgreSQL (fsync)'], ['pgsaver', 'PostgresSaver']];
  const runs = {};
  for (let i = 0; i < REPEATS; i++) for (const [mode] of ways) (runs[mode] ??= []).push(await round(mode));
  const med = (mode, f) => median(runs[mode].map(f));
  const ratio = (mode) => median(runs[mode].map((r, i) => r.rps / runs.memory[i].rps));
  await report(
    `Application: a chat turn over HTTP, ${CLIENTS} concurrent clients, three checkpointers on one PostgreSQL`,
    ['service', 'requests/s', 'p50 ms', 'p99 ms', 'requests in the window', 'ratio requests/s vs no store'],
    ways.map(([mode, title]) => [title, med(mode, (r) => r.rps), med(mode, (r) => r.p50), med(mode, (r) => r.p99), med(mode, (r) => r.requests), ratio(mode)]),
    [
      `A turn: POST /turn/<thread> → graph.invoke of one StateGraph (MessagesAnnotation, one node appending a 200-character reply) with the thread's id: LangGraph reads the thread's checkpoint, runs the node, writes the checkpoint(s) and writes (LangGraph's default durability); the answer is the thread's length, checked by the client (two messages more per turn).`,
      `${CLIENTS} clients in the bench process, one keep-alive connection and one thread each, closed loop; one untimed first turn each, then a ${WINDOW_MS} ms window. The service is one Node process (spawned), the clients another: the 2-core machine also runs PostgreSQL.`,
      `${REPEATS} rounds alternating the three ways, each on a new schema; medians; the ratio is the median of the per-round ratios against that round's no-store run.`,
      'StateflowSaver: openPostgresStore defaults (its pool, group commit) with durability fsync; PostgresSaver: its own pg pool (node-postgres default, 10 connections), synchronous_commit on.',
    ],
  );
  const bench = await pgbenchRows();
  await report(
    'Application reference: pgbench -N on the same PostgreSQL server',
    ['run', 'TPS'],
    bench.rows,
    [`pgbench -i -s 10 on a database of its own (dropped after), then -N (the simple-update script without branch/teller updates) for ${bench.seconds} s per run, -j up to 2 threads, ${REPEATS} runs each, medians: the durable commits per second this machine's PostgreSQL does.`],
  );
}

if (process.argv[2] === 'serve') await serve(process.argv[3], process.argv[4]);
else await main();
