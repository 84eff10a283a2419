/**
 * Bench — the Python client (clients/python) against the TypeScript one, on one spawned
 * `stateflow serve` over loopback:
 *
 * - publish round trip: closed-loop `publish` calls, one at a time, each a new value on a stream
 *   of its own: the Python client's median latency ÷ `openRemoteStore(...).publish`'s (goal ≤ 1.5);
 *   the two alternate round by round, 3 rounds, so load drift hits both;
 * - watch: transitions per second delivered to one Python `client.watch(after=…)` iterator from a
 *   log of retained transitions, first byte to last transition (goal ≥ 5,000), beside
 *   `watchTransitions` of `@stateflow/client` over the same range.
 *
 * Needs `python3` (3.9+) and a build. BENCH_SCALE scales the counts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openRemoteStore, watchTransitions } from '@stateflow/client';
import { BENCH_DIR, REPEATS, median, removeDir, report, scaled, serveStore, stopServer, tempDir } from './lib.mjs';

const PUBLISHES = scaled(2_000, 100);
const WARMUP = 50;
const WATCHED = scaled(20_000, 1_000);
const DRIVER = path.join(BENCH_DIR, 'python-client.py');
const PYTHON = process.env.STATEFLOW_PYTHON ?? 'python3';

/** One measurement of the Python driver (its JSON). */
function python(...args) {
  return JSON.parse(execFileSync(PYTHON, [DRIVER, ...args.map(String)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
}

async function typescriptPublishes(store, stream) {
  for (let i = 0; i < WARMUP; i++) await store.publish({ changes: { [stream]: { tactics: { n: -1 - i } } } });
  const latencies = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < PUBLISHES; i++) {
    const before = process.hrtime.bigint();
    await store.publish({ changes: { [stream]: { tactics: { n: i } } } });
    latencies.push(Number(process.hrtime.bigint() - before) / 1e6);
  }
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, latencies };
}

/** Transitions/s of `watchTransitions` over (after, after + count]. */
async function typescriptWatch(server, after, count) {
  const abort = new AbortController();
  let seen = 0;
  const started = process.hrtime.bigint();
  for await (const _event of watchTransitions({ url: server.url, token: server.token }, { from: after, signal: abort.signal })) {
    if (++seen === count) break;
  }
  abort.abort();
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** `count` transitions published 1,000 per request; the seq before the first. */
async function fillLog(store, count) {
  const start = store.lastSeq();
  for (let done = 0; done < count; done += 1000) {
    const inputs = Array.from({ length: Math.min(1000, count - done) }, (_, i) => ({ changes: { 'session:watched': { lazy: { log: { [`k${(done + i) % 50}`]: done + i } } } } }));
    await store.publishMany(inputs);
  }
  return start;
}

const dir = await tempDir('python-client');
const server = await serveStore(dir);
const store = await openRemoteStore({ url: server.url, token: server.token });
try {
  const ts = [];
  const py = [];
  for (let round = 0; round < REPEATS; round++) {
    ts.push(await typescriptPublishes(store, `session:ts-${round}`));
    py.push(python('publish', server.url, server.token, `session:py-${round}`, PUBLISHES, WARMUP));
  }
  const p50 = (run) => median(run.latencies);
  const rate = (run) => run.latencies.length / run.seconds;
  const tsP50 = median(ts.map(p50));
  const pyP50 = median(py.map(p50));
  const after = await fillLog(store, WATCHED);
  const watchRates = [];
  const tsWatchRates = [];
  for (let round = 0; round < REPEATS; round++) {
    const run = python('watch', server.url, server.token, after, WATCHED);
    if (run.seen !== WATCHED) throw new Error(`the Python watch saw ${run.seen} of ${WATCHED}`);
    watchRates.push(WATCHED / run.seconds);
    tsWatchRates.push(await typescriptWatch(server, after, WATCHED));
  }
  const pyWatch = median(watchRates);
  const tsWatch = median(tsWatchRates);
  await report(
    'Python client: publish round trip and watch delivery vs the TypeScript client, one server on loopback',
    ['figure', 'Python', 'TypeScript', 'ratio Python ÷ TypeScript', 'goal'],
    [
      ['publish round trip, p50 ms', pyP50, tsP50, pyP50 / tsP50, 'ratio ≤ 1.5'],
      ['publish calls/s, closed loop', median(py.map(rate)), median(ts.map(rate)), median(py.map(rate)) / median(ts.map(rate)), ''],
      ['watch: transitions/s to one iterator', pyWatch, tsWatch, pyWatch / tsWatch, 'Python ≥ 5,000/s'],
    ],
    [
      `${PUBLISHES} publishes per round after ${WARMUP} warm-up ones, ${REPEATS} rounds alternating TypeScript (\`openRemoteStore(...).publish\`, undici fetch) and Python (\`Client.publish\`, http.client, a new process per round); medians of the rounds. Each publish is one transition on its own stream (buffered durability, LevelDB), answered before the next is sent.`,
      `Watch: ${WATCHED} retained transitions (published 1,000 per publish-many beforehand), each one change of \`session:watched\`; one iterator per round from \`after\` = the seq before them until the last, checked gap-free; Python \`client.watch(after=…)\`, TypeScript \`watchTransitions\` of @stateflow/client. Median of ${REPEATS} rounds.`,
      `Python ${execFileSync(PYTHON, ['--version'], { encoding: 'utf8' }).trim()}.`,
    ],
  );
} finally {
  await store.close();
  await stopServer(server.child);
  await removeDir(dir);
}
