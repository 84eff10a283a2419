/**
 * The history page at scale: time to first render and cursor-drag latency in headless Chromium
 * against a real `stateflow serve`, on a store of 100,000 transitions (BENCH_SCALE scales it),
 * as a ratio against the same page on the eslint history (1,288 revisions) in the same run.
 *
 * - first render: navigation start → the first state-tree row is in the DOM, the page opened at
 *   a permalink (stream + seq), measured in the page (`performance.now()`); median of 5 loads.
 * - drag latency: pointer held down on the histogram and moved to 40 seeded positions; each
 *   sample is the time from the move until the tree shows the revision at the new cursor
 *   (`data-cursor` of the tree equals the slider's value); p50 and p95.
 * - the three requests a cursor move costs on the server (histogram once, then node levels).
 * - search through time: Search clicked → the first hit in the DOM, for a value that first
 *   appears half-way through the stream (the page asks page after page of the server's scan
 *   budget, 5,000 transitions, until a page has hits); median of 3. And one page of the search
 *   on the server (5,000 transitions read).
 *
 * Needs /usr/bin/chromium (apt-get install -y chromium) and the built CLI; skipped otherwise.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openStore } from '@stateflow/store-leveldb';
import { chromium } from 'playwright-core';
import { BENCH_DIR, BIN, SCALE, removeDir, report, rng, scaled, serveStore, stopServer, tempDir, time } from './lib.mjs';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const REPO = path.resolve(BENCH_DIR, '..');
const ESLINT = path.resolve(REPO, '../shared/data/histories/eslint-package-json.jsonl');
const LOADS = 5;
const MOVES = 40;

if (!existsSync(CHROMIUM) || !existsSync(BIN) || !existsSync(ESLINT)) {
  console.log(`history-page: SKIPPED (needs ${CHROMIUM}, the built CLI and ${ESLINT})`);
  process.exit(0);
}

/** A store of `n` transitions: a 60-key document in cwd:/bench changed one key at a time, plus global and a session every 20th. */
async function syntheticStore(dir, n) {
  const store = await openStore(dir);
  const doc = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`key${i}`, { value: 0, label: `item ${i}` }]));
  await store.publish({ changes: { 'cwd:/bench': { lazy: { doc } } } });
  for (let seq = 2; seq <= n; seq++) {
    const stream = seq % 20 === 0 ? (seq % 40 === 0 ? 'global' : 'session:bench') : 'cwd:/bench';
    await store.publish({ changes: { [stream]: { lazy: { doc: { [`key${seq % 60}`]: { value: seq } } } } } });
  }
  await store.close();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Measure one store: first render, drag latency, request costs. */
async function measure(browser, url, stream, search) {
  const heads = await (await fetch(`${url}/v1/history/streams?filter=${encodeURIComponent(stream)}`)).json();
  const lastSeq = heads.lastSeq;
  const histogram = () => time(() => fetch(`${url}/v1/history/histogram?buckets=120`).then((r) => r.json()));
  const requests = {
    histogram: (await histogram()).ms,
    histogramAgain: (await histogram()).ms,
    node: (await time(() => fetch(`${url}/v1/history/node?stream=${encodeURIComponent(stream)}&seq=${Math.floor(lastSeq / 2)}&pointer=/lazy/doc`).then((r) => r.json()))).ms,
  };
  const renders = [];
  let page;
  for (let i = 0; i < LOADS; i++) {
    page?.close();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/ui/#stream=${encodeURIComponent(stream)}&seq=${Math.floor(lastSeq / 2)}`);
    renders.push(await page.waitForFunction(() => document.querySelector('[data-testid="tree-rows"] [data-pointer]') !== null && performance.now(), null, { polling: 'raf' }).then((h) => h.jsonValue()));
  }
  const slider = page.getByTestId('histogram');
  const box = await slider.boundingBox();
  const random = rng(7);
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width / 2, y);
  await page.mouse.down();
  const drags = [];
  const cursor = () => slider.getAttribute('aria-valuenow');
  for (let i = 0; drags.length < MOVES && i < MOVES * 4; i++) {
    const x = box.x + 2 + random() * (box.width - 4);
    const before = await cursor();
    const started = performance.now();
    await page.mouse.move(x, y);
    // A move within the same seq changes nothing to wait for: not a sample.
    if ((await cursor()) === before) continue;
    await page.waitForFunction(
      () => {
        const want = document.querySelector('[data-testid="histogram"]')?.getAttribute('aria-valuenow');
        return want !== null && document.querySelector('[data-testid="tree"]')?.getAttribute('data-cursor') === want;
      },
      null,
      { polling: 'raf' },
    );
    drags.push(performance.now() - started);
  }
  await page.mouse.up();
  await page.close();
  const late = await measureSearch(browser, url, stream, search.late);
  const early = await measureSearch(browser, url, stream, search.early);
  return { lastSeq, firstRender: median(renders), dragP50: percentile(drags, 0.5), dragP95: percentile(drags, 0.95), ...requests, searchFirst: late.first, searchPage: late.page, searchEarly: early.first };
}

/** Search clicked → first hit shown (median of 3), and one server page of the search. */
async function measureSearch(browser, url, stream, search) {
  const times = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/ui/#stream=${encodeURIComponent(stream)}&tab=search`);
    await page.getByTestId('search-key').fill(search.key);
    await page.getByTestId('search-input').fill(search.value);
    const started = await page.evaluate(() => performance.now());
    await page.getByTestId('search-go').click();
    const shown = await page.waitForFunction(() => document.querySelector('[data-testid="search-hit"]') !== null && performance.now(), null, { polling: 'raf' }).then((h) => h.jsonValue());
    const rev = Number(await page.getByTestId('search-hit').first().getAttribute('data-rev'));
    if (rev !== search.rev) throw new Error(`search found rev ${rev}, expected ${search.rev}`);
    times.push(shown - started);
    await page.close();
  }
  const onePage = await time(() => fetch(`${url}/v1/history/search?stream=${encodeURIComponent(stream)}&key=${encodeURIComponent(search.key)}&value=${encodeURIComponent(search.value)}&scan=5000`).then((r) => r.json()));
  return { first: median(times), page: onePage.ms };
}

/** A search of the synthetic store: the first seq ≥ n × share written to cwd:/bench sets key(seq % 60).value to seq. */
function syntheticSearch(n, share) {
  let seq = Math.floor(n * share);
  while (seq % 20 === 0) seq++;
  const rev = seq - Math.floor(seq / 20);
  return { key: `/lazy/doc/key${seq % 60}/value`, value: String(seq), rev };
}

/** The eslint revision where version first becomes 9.2.0 (revisions count distinct documents). */
function eslintBecame() {
  return eslintBecameFirst('9.2.0');
}

/** The eslint revision where version first becomes `version`. */
function eslintBecameFirst(version) {
  const lines = readFileSync(ESLINT, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l).doc);
  const docs = lines.filter((d, i) => i === 0 || JSON.stringify(canonical(d)) !== JSON.stringify(canonical(lines[i - 1])));
  return docs.findIndex((d, i) => d.version === version && docs[i - 1]?.version !== version) + 1;
}

/** `value` with object keys sorted (documents equal but for key order are one revision). */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
  return value;
}

const root = await tempDir('history-page');
const n = scaled(100_000, 1000);
try {
  const eslintDir = path.join(root, 'eslint');
  execFileSync(process.execPath, [BIN, '--dir', eslintDir, 'import', ESLINT, '--stream', 'cwd:/proj', '--at', 'lazy.history'], { stdio: 'ignore' });
  const bigDir = path.join(root, 'big');
  const built = await time(() => syntheticStore(bigDir, n));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const results = [];
  const became = eslintBecame();
  const eslintSearch = { late: { key: 'version', value: '9.2.0', rev: became }, early: { key: 'version', value: '0.1.0', rev: eslintBecameFirst('0.1.0') } };
  for (const [label, dir, stream, search] of [
    ['eslint history (1,288 revisions, ~3.5 KB document)', eslintDir, 'cwd:/proj', eslintSearch],
    [`synthetic: ${n.toLocaleString('en-US')} transitions, 3 streams, 60-key document`, bigDir, 'cwd:/bench', { late: syntheticSearch(n, 0.5), early: syntheticSearch(n, 0.05) }],
  ]) {
    const { child, url } = await serveStore(dir);
    try {
      results.push([label, await measure(browser, url, stream, search)]);
    } finally {
      await stopServer(child);
    }
  }
  const version = browser.version();
  await browser.close();
  const base = results[0][1];
  const rows = results.flatMap(([label, r]) => [
    [label, 'time to first render (ms, median of 5)', r.firstRender, r.firstRender / base.firstRender],
    [label, 'cursor drag → tree at the new seq, p50 (ms)', r.dragP50, r.dragP50 / base.dragP50],
    [label, 'cursor drag → tree at the new seq, p95 (ms)', r.dragP95, r.dragP95 / base.dragP95],
    [label, 'GET /v1/history/histogram, 120 buckets, first request of the process (ms)', r.histogram, r.histogram / base.histogram],
    [label, 'GET /v1/history/histogram, 120 buckets, again (times cached) (ms)', r.histogramAgain, r.histogramAgain / base.histogramAgain],
    [label, 'GET /v1/history/node, one level (ms)', r.node, r.node / base.node],
    [label, 'search: Search clicked → first hit shown, first match 5% into the stream (ms, median of 3; goal ≤ 1,000)', r.searchEarly, r.searchEarly / base.searchEarly],
    [label, 'search: Search clicked → first hit shown, first match half-way (synthetic) / at rev 998 of 1,288 (eslint) (ms, median of 3)', r.searchFirst, r.searchFirst / base.searchFirst],
    [label, 'GET /v1/history/search, one page (5,000 transitions read at most) (ms)', r.searchPage, r.searchPage / base.searchPage],
  ]);
  await report(`History page: first render and cursor drag, ${n.toLocaleString('en-US')} transitions vs the eslint history`, ['store', 'figure', 'value', 'ratio vs eslint history'], rows, [
    `Headless Chromium ${version} (Debian) driven by playwright-core against \`stateflow serve\` (LevelDB) on loopback; ${MOVES} seeded drag moves; first render = navigation start → first tree row in the DOM; drag samples include up to one animation frame (~16 ms) of polling.`,
    `The synthetic store took ${(built.ms / 1000).toFixed(1)} s to publish; BENCH_SCALE=${SCALE}.`,
  ]);
} finally {
  await removeDir(root);
}
