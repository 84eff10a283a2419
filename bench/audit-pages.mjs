/**
 * Bench — the audit of a large state: a LevelDB store of one 100,000-key object and 1,000
 * one-key publishes into it, reopened and audited, by this build and by a baseline build
 * (`BASELINE_ROOT`, default `/work/main`: its `packages/store-leveldb/dist`), each store written
 * by its own build (so with its own checkpoint policy), alternating, {@link REPEATS} times each.
 * Rows: audit time, checkpoints, and the audit time ÷ the baseline's. Each run is a child
 * process (`node audit-pages.mjs child <store-leveldb module>`), so the builds never share a heap.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR, REPEATS, fmt, median, removeDir, report, scaled, tempDir, time } from './lib.mjs';

const STREAM = 'cwd:/bench';
const KEYS = scaled(100_000, 1_000);
const PUBLISHES = scaled(1_000, 50);

/** One run in this process: build the store with `modulePath`'s `openStore`, reopen it, audit it; prints `{ auditMs, checkpoints, problems }`. */
async function child(modulePath) {
  const { openStore } = await import(pathToFileURL(modulePath).href);
  const dir = await tempDir('audit-pages');
  try {
    let store = await openStore(dir);
    const memory = {};
    for (let i = 0; i < KEYS; i++) memory[`k${i}`] = `value ${i}`;
    await store.publish({ changes: { [STREAM]: { lazy: { memory } } } });
    for (let i = 0; i < PUBLISHES; i++) await store.publish({ changes: { [STREAM]: { lazy: { memory: { [`k${(i * 7919) % KEYS}`]: `changed ${i}` } } } } });
    await store.close();
    store = await openStore(dir);
    const { ms, value: audit } = await time(() => store.audit());
    await store.close();
    console.log(JSON.stringify({ auditMs: ms, checkpoints: audit.checkpoints, problems: audit.problems.length }));
  } finally {
    await removeDir(dir);
  }
}

/** One child run of the build at `root`. */
function run(root) {
  const out = execFileSync(process.execPath, [path.join(BENCH_DIR, 'audit-pages.mjs'), 'child', path.join(root, 'packages/store-leveldb/dist/index.js')], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').at(-1));
}

if (process.argv[2] === 'child') await child(process.argv[3]);
else {
  const builds = { baseline: process.env.BASELINE_ROOT ?? '/work/main', this: path.resolve(BENCH_DIR, '..') };
  const runs = { baseline: [], this: [] };
  for (let i = 0; i < REPEATS; i++) for (const name of ['baseline', 'this']) runs[name].push(run(builds[name]));
  const row = (name) => {
    const ms = median(runs[name].map((r) => r.auditMs));
    return [name === 'this' ? 'this build' : `baseline (${builds.baseline})`, fmt(ms), String(runs[name][0].checkpoints), String(Math.max(...runs[name].map((r) => r.problems))), runs[name].map((r) => fmt(r.auditMs)).join(' / ')];
  };
  const ratio = median(runs.this.map((r) => r.auditMs)) / median(runs.baseline.map((r) => r.auditMs));
  await report(`Audit of ${KEYS.toLocaleString('en')} keys and ${PUBLISHES.toLocaleString('en')} one-key publishes`, ['build', 'audit ms (median)', 'checkpoints', 'problems', 'runs'], [row('baseline'), row('this'), ['this ÷ baseline', ratio.toFixed(2), '', '', '']]);
}
