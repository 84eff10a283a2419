/**
 * Bench — metrics overhead: publish throughput (append.mjs's single-writer and concurrent
 * publishers, buffered) with the server's Prometheus metrics observing the store
 * (`ServerMetrics.storeObserver`, as `stateflow serve` opens its store) vs no observer, with no
 * trace exporter (the OpenTelemetry API's spans are no-ops either way). The machine drifts more
 * than the effect between runs, so both run in one process in interleaved A/B rounds (each round
 * on new stores, the order alternating), and the ratio is taken per round: the median and the
 * spread (min–max) of those ratios are reported.
 */
import { ServerMetrics } from '@stateflow/server';
import { openStore } from '@stateflow/store-leveldb';
import { median, removeDir, report, scaled, tempDir, time } from './lib.mjs';

const ROUNDS = 10;
const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });

/** Publishes per second: `n` publishes on `concurrency` streams at once, on a new store. */
async function rate(n, concurrency, observer) {
  const dir = await tempDir('metrics-overhead');
  const store = await openStore(dir, observer === undefined ? {} : { observer });
  try {
    const per = Math.ceil(n / concurrency);
    const { ms } = await time(() =>
      Promise.all(
        Array.from({ length: concurrency }, async (_, lane) => {
          for (let i = 0; i < per; i++) await store.publish({ changes: { [`session:${lane}`]: patchFor(i) } });
        }),
      ),
    );
    return (per * concurrency) / (ms / 1000);
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

const cases = [
  ['single writer, buffered', scaled(10_000, 200), 1],
  ['8 concurrent publishers, buffered', scaled(10_000, 200), 8],
];

const metrics = new ServerMetrics();
const rows = [];
for (const [label, n, concurrency] of cases) {
  // Warm-up of both paths (JIT), not measured.
  await rate(Math.min(n, 2000), concurrency, metrics.storeObserver);
  await rate(Math.min(n, 2000), concurrency, undefined);
  const on = [];
  const off = [];
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
    const got = {};
    for (const which of order) got[which] = await rate(n, concurrency, which === 'on' ? metrics.storeObserver : undefined);
    on.push(got.on);
    off.push(got.off);
    ratios.push(got.on / got.off);
  }
  const spread = `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`;
  rows.push([label, n, ROUNDS, median(on), median(off), median(ratios), spread, '≥ 0.97']);
}
const published = (await metrics.registry.getSingleMetric('stateflow_publish_duration_seconds').get()).values.filter((v) => v.metricName?.endsWith('_count'));

await report(
  'Metrics overhead: publish with the server metrics observing the store vs none',
  ['scenario', 'publishes per run', 'A/B rounds', 'metrics on publish/s', 'metrics off publish/s', 'ratio on/off (median of rounds)', 'ratio spread (min–max)', 'goal'],
  rows,
  [
    'One process: per round one run with ServerMetrics.storeObserver as the store observer (publish histogram by durability and outcome, commit size, bytes and time, read histogram) and one without, order alternating; a new LevelDB store per run; a warm-up run of each first.',
    'No trace exporter: the store makes its spans through @opentelemetry/api with no SDK registered, so they are no-ops in both arms (the cost of the API calls is in both).',
    `The observer counted ${published.reduce((sum, v) => sum + v.value, 0)} publishes across the "on" runs (a check that it observed).`,
  ],
);
