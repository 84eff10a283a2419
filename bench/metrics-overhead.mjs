/**
 * Bench — metrics overhead: publish throughput (append.mjs's single writer and concurrent
 * publishers, buffered, the same patches) with the server's Prometheus metrics observing the
 * store (`ServerMetrics.storeObserver`, as `stateflow serve` opens its store) vs no observer, with
 * no trace exporter (the OpenTelemetry API's spans are no-ops either way).
 *
 * This machine's speed drifts by more than the effect, within seconds (other work shares its 2
 * cores), so the two arms run in one process on two stores open side by side, in interleaved
 * chunks of CHUNK publishes (A B, then B A, …): both arms see the same moments. A round is
 * PAIRS chunk pairs; its ratio is arm A's publishes per second over arm B's. Reported: the median
 * of the rounds' ratios and their spread (min–max), and an A/A control (two unobserved stores,
 * the same schedule) that shows the noise floor of the method on this run.
 */
import { ServerMetrics } from '@stateflow/server';
import { openMemoryStore } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { median, removeDir, report, scaled, tempDir } from './lib.mjs';

const ROUNDS = 12;
const PAIRS = 10;
const CHUNK = scaled(400, 50);
const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });

/** An open store (LevelDB in a new directory, or in memory) with its publish counter; `observer` optional. */
async function arm(observer, backend) {
  const options = observer === undefined ? {} : { observer };
  const dir = backend === 'leveldb' ? await tempDir('metrics-overhead') : null;
  const store = dir === null ? await openMemoryStore(options) : await openStore(dir, options);
  let next = 0;
  return {
    /** ms to publish `n` patches on `concurrency` streams at once. */
    async chunk(n, concurrency) {
      const per = Math.ceil(n / concurrency);
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async (_, lane) => {
          for (let i = 0; i < per; i++) await store.publish({ changes: { [`session:${lane}`]: patchFor(next++) } });
        }),
      );
      return performance.now() - start;
    },
    async close() {
      await store.close();
      if (dir !== null) await removeDir(dir);
    },
  };
}

/** Per-round ratios (A's rate over B's) of interleaved chunks; A and B are opened fresh. */
async function compare(openA, openB, concurrency) {
  const [a, b] = [await openA(), await openB()];
  try {
    // Warm-up of both (JIT, LevelDB's first memtable), not measured.
    for (let i = 0; i < 3; i++) {
      await a.chunk(CHUNK, concurrency);
      await b.chunk(CHUNK, concurrency);
    }
    const ratios = [];
    const rates = { a: [], b: [] };
    for (let round = 0; round < ROUNDS; round++) {
      let msA = 0;
      let msB = 0;
      for (let pair = 0; pair < PAIRS; pair++) {
        if ((round + pair) % 2 === 0) {
          msA += await a.chunk(CHUNK, concurrency);
          msB += await b.chunk(CHUNK, concurrency);
        } else {
          msB += await b.chunk(CHUNK, concurrency);
          msA += await a.chunk(CHUNK, concurrency);
        }
      }
      const n = CHUNK * PAIRS;
      rates.a.push(n / (msA / 1000));
      rates.b.push(n / (msB / 1000));
      ratios.push(msB / msA);
    }
    return { ratios, a: median(rates.a), b: median(rates.b) };
  } finally {
    await a.close();
    await b.close();
  }
}

const metrics = new ServerMetrics();
const rows = [];
const perPublishMs = {};
for (const [label, backend, concurrency] of [
  ['LevelDB, single writer, buffered', 'leveldb', 1],
  ['LevelDB, 8 concurrent publishers, buffered', 'leveldb', 8],
  ['memory storage, single writer', 'memory', 1],
]) {
  const observed = await compare(() => arm(metrics.storeObserver, backend), () => arm(undefined, backend), concurrency);
  const control = await compare(() => arm(undefined, backend), () => arm(undefined, backend), concurrency);
  const spread = (xs) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
  perPublishMs[label] = 1000 / observed.b;
  rows.push([label, observed.a, observed.b, median(observed.ratios), spread(observed.ratios), median(control.ratios), spread(control.ratios), '≥ 0.97']);
}

const counted = (await metrics.text())
  .split('\n')
  .filter((line) => line.startsWith('stateflow_publish_duration_seconds_count'))
  .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);

/**
 * What the observer itself costs per publish, timed alone (no I/O, so the machine's drift matters
 * far less): one `published` and one `committed` call with `performance.now()` around them, as the
 * store makes them for a single publish, median of ROUNDS runs of 100,000.
 */
const HOOK_CALLS = 100_000;
const hookRuns = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = performance.now();
  for (let i = 0; i < HOOK_CALLS; i++) {
    const t = performance.now();
    metrics.storeObserver.published({ durability: 'buffered', outcome: 'accepted', ms: performance.now() - t });
    metrics.storeObserver.committed({ transitions: 1, bytes: 600, synced: false, ms: performance.now() - t });
  }
  hookRuns.push(((performance.now() - start) * 1000) / HOOK_CALLS);
}
const hookUs = median(hookRuns);
for (const [label, ms] of Object.entries(perPublishMs)) {
  rows.push([`${label}: hook cost / publish time`, '', '', 1 - hookUs / (ms * 1000), `${hookUs.toFixed(2)} µs of ${(ms * 1000).toFixed(0)} µs`, '', '', '≥ 0.97']);
}

await report(
  'Metrics overhead: publish with the server metrics observing the store vs none',
  ['scenario', 'metrics on publish/s', 'metrics off publish/s', 'ratio on/off (median of rounds)', 'spread of rounds (min–max)', 'A/A control: ratio', 'A/A control: spread', 'goal'],
  rows,
  [
    `One process, two LevelDB stores open side by side (one with ServerMetrics.storeObserver as its observer: publish histogram by durability and outcome, commit size, bytes and time; one without), publishing in interleaved chunks of ${CHUNK} (A B, B A, …); ${ROUNDS} rounds of ${PAIRS} chunk pairs, a round's ratio is its on-rate over its off-rate; after 3 warm-up chunk pairs.`,
    'A/A control: the same schedule with two unobserved stores, so its spread is the noise of the method on this machine at that time.',
    'No trace exporter: the store makes its spans through @opentelemetry/api with no SDK registered; with an observer the store times each call and asks for a span (a non-recording one), without one it runs the call unchanged.',
    `Hook cost rows: the observer's two calls per publish (published, committed) with their performance.now() timing, timed alone in ${ROUNDS} runs of ${HOOK_CALLS.toLocaleString('en-US')} (median ${hookUs.toFixed(2)} µs, runs ${Math.min(...hookRuns).toFixed(2)}–${Math.max(...hookRuns).toFixed(2)} µs), against that row's unobserved publish time; the ratio column is 1 − hook/publish, the throughput that is left.`,
    `The observer counted ${counted} publishes (a check that the "on" arm was observed).`,
  ],
);
