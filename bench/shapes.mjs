/**
 * Bench — versioned state shapes (store README "Shapes"), on LevelDB in a temp dir:
 *
 * 1. `stateAt(rev, { shape: 'current' })` ÷ `stateAt(rev)` (stored) over every revision of a real
 *    history (eslint's package.json, ../shared/data/histories) written under version 1 of
 *    `PACKAGE_JSON_SHAPES`, with versions 2–4 declared: each read from version 1 runs the
 *    three-step chain and validates the result. A pass reads every revision once; "cold" passes
 *    run on a freshly opened store (no cache of either kind), "memoised" passes repeat on the
 *    same store (the engine's LRU for stored, the per-revision memo for current). Goal row: cold.
 * 2. A one-member publish into a 50-property state validated against a 50-property schema ÷ the
 *    same publish in a store without shapes.
 * 3. `checkShape(store, name, { all: true })` (what `stateflow shape check --all` runs) over the
 *    history: revisions per second.
 */
import { existsSync } from 'node:fs';
import { setShape, checkShape } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { PACKAGE_JSON_SHAPES } from '@stateflow/test-kit';
import { HISTORIES, distinctRevisions, loadDocs } from './history-writes.mjs';
import { median, removeDir, report, scaled, tempDir, time } from './lib.mjs';

const FILE = 'eslint-package-json.jsonl';
const STREAM = 'cwd:/repo';
const ROUNDS = 3;
const PUBLISHES = scaled(2000, 50);

if (!existsSync(HISTORIES)) {
  if (process.env.CI === 'true') throw new Error(`shapes bench: real histories not found at ${HISTORIES}`);
  console.warn(`shapes bench: real histories not found at ${HISTORIES}; skipped`);
  process.exit(0);
}

const revs = distinctRevisions(loadDocs(FILE));
const historyDir = await tempDir('bench-shapes-history');
const [plainDir, shapedDir] = [await tempDir('bench-shapes-plain'), await tempDir('bench-shapes-50')];
try {
  let store = await openStore(historyDir);
  const [v1, ...later] = PACKAGE_JSON_SHAPES;
  await setShape(store, 'manifest', { streams: 'cwd:*', ...v1 });
  for (const { patch } of revs) await store.publish({ changes: { [STREAM]: patch } });
  const last = (await store.head(STREAM)).rev;
  for (const version of later) await setShape(store, 'manifest', { streams: 'cwd:*', ...version });

  const pass = (options) => async () => {
    for (let rev = 1; rev <= last; rev++) await store.stateAt(STREAM, rev, options);
  };
  const reopen = async () => {
    await store.close();
    store = await openStore(historyDir);
  };
  const cold = { stored: [], current: [] };
  const warm = { stored: [], current: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of ['stored', 'current']) {
      await reopen();
      cold[kind].push((await time(pass({ shape: kind }))).ms);
      warm[kind].push((await time(pass({ shape: kind }))).ms);
    }
  }
  const [cs, cc, ws, wc] = [median(cold.stored), median(cold.current), median(warm.stored), median(warm.current)];

  await reopen();
  const check = await time(() => checkShape(store, 'manifest', { all: true }));
  if (check.value.failures.length > 0) throw new Error(`shapes bench: check found ${check.value.failures.length} failures`);
  await store.close();

  const { plain, shaped } = await publishes();

  await report(
    `Shapes: reads through a 3-step upcast chain (${FILE.replace('.jsonl', '')}, ${last} revisions), validated publishes, shape check, LevelDB`,
    ['what', 'median ms', 'ratio', 'goal'],
    [
      [`stateAt stored, every revision, cold store`, cs, 1, ''],
      [`stateAt current (v1 → v4: 3 steps + validation), every revision, cold store`, cc, cc / cs, '≤ 1.3'],
      [`stateAt stored, every revision, again (engine LRU)`, ws, 1, ''],
      [`stateAt current, every revision, again (per-revision memo)`, wc, wc / ws, ''],
      [`${PUBLISHES} one-member publishes, 50-property state, no shape`, plain, 1, ''],
      [`${PUBLISHES} one-member publishes, validated against a 50-property schema`, shaped, shaped / plain, '≤ 1.2'],
      [`checkShape --all: ${check.value.revisions} revisions upcast to v4 and validated`, check.ms, `${Math.round(check.value.revisions / (check.ms / 1000)).toLocaleString('en-US')} revisions/s`, 'reported'],
    ],
    [`${ROUNDS} rounds of each read pass (stored and current alternating, each on a reopened store first; the check too); publishes alternate between the two stores in ${ROUNDS} rounds; medians. Ratios in the same run.`],
  );
} finally {
  await removeDir(historyDir);
  await removeDir(plainDir);
  await removeDir(shapedDir);
}

/** Median ms of PUBLISHES one-member publishes into a 50-property state, without and with a 50-property schema. */
async function publishes() {
  const properties = {};
  const state = {};
  for (let i = 0; i < 50; i++) {
    properties[`p${i}`] = i % 2 === 0 ? { type: 'string', maxLength: 64 } : { type: 'integer', minimum: 0 };
    state[`p${i}`] = i % 2 === 0 ? `value ${i}` : i;
  }
  const schema = { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  const plainStore = await openStore(plainDir);
  const shapedStore = await openStore(shapedDir);
  try {
    await setShape(shapedStore, 'fifty', { streams: 'session:*', schema });
    for (const s of [plainStore, shapedStore]) await s.publish({ changes: { 'session:1': state } });
    let n = 0;
    const run = (s) => async () => {
      for (let i = 0; i < PUBLISHES; i++) await s.publish({ changes: { 'session:1': { p1: ++n } } });
    };
    const times = { plain: [], shaped: [] };
    for (let r = 0; r < ROUNDS; r++) {
      times.plain.push((await time(run(plainStore))).ms);
      times.shaped.push((await time(run(shapedStore))).ms);
    }
    return { plain: median(times.plain), shaped: median(times.shaped) };
  } finally {
    await plainStore.close();
    await shapedStore.close();
  }
}
