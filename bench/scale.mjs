/**
 * Benches 4–6 on one large store: (4) open + first read with 1M transitions vs 1k;
 * (5) audit: transitions verified per second vs raw LevelDB iteration over the same keys;
 * (6) memory: peak RSS while publishing 1M transitions and while auditing them, vs raw LevelDB
 * puts / iteration of the same count. Each measurement runs in its own child process.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { BENCH_DIR, REPEATS, median, removeDir, report, scaled, tempDir } from './lib.mjs';

const CHILD = path.join(BENCH_DIR, 'scale-child.mjs');
const STREAMS = 100;

function child(...args) {
  const stdout = execFileSync(process.execPath, ['--expose-gc', CHILD, ...args.map(String)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const big = scaled(1_000_000, 2_000);
const small = scaled(1_000, 1_000);
const dirs = { big: await tempDir('scale-big'), small: await tempDir('scale-small'), raw: await tempDir('scale-raw'), idle: await tempDir('scale-idle') };
try {
  const buildBig = child('build', dirs.big, big, STREAMS);
  child('build', dirs.small, small, STREAMS);
  const rawBuild = child('raw-build', dirs.raw, big);
  const idle = child('idle', dirs.idle);

  // (4) open + first read, each twice; the second run is reported (page cache warm for both).
  const openOf = (dir) => (child('open', dir, 'session:7'), child('open', dir, 'session:7'));
  const openBig = openOf(dirs.big);
  const openSmall = openOf(dirs.small);
  await report(
    `Open: time to open and serve the first read, ${big.toLocaleString('en-US')} vs ${small.toLocaleString('en-US')} transitions`,
    ['store', 'open ms', 'first read ms', 'open + first read ms', 'ratio vs small store'],
    [
      [`${small.toLocaleString('en-US')} transitions`, openSmall.openMs, openSmall.firstReadMs, openSmall.openMs + openSmall.firstReadMs, 1],
      [`${big.toLocaleString('en-US')} transitions`, openBig.openMs, openBig.firstReadMs, openBig.openMs + openBig.firstReadMs, (openBig.openMs + openBig.firstReadMs) / (openSmall.openMs + openSmall.firstReadMs)],
    ],
    [`${STREAMS} streams; first read = current state of one stream (checkpoint + tail replay). Fresh process per open, measured on the second of two runs (OS page cache warm).`],
  );

  // (5) audit vs raw iteration over the store's own LevelDB keys.
  // REPEATS alternating runs of each; the median run of each is reported.
  const audits = [];
  const raws = [];
  for (let i = 0; i < REPEATS; i++) {
    audits.push(child('audit', dirs.big));
    raws.push(child('raw-iterate', dirs.big));
  }
  const medianRun = (runs) => runs.find((r) => r.ms === median(runs.map((x) => x.ms)));
  const audit = medianRun(audits);
  const raw = medianRun(raws);
  await report(
    `Audit: transitions verified per second vs raw LevelDB iteration (${big.toLocaleString('en-US')} transitions)`,
    ['pass', 'items', 'ms', 'items/s', 'ratio vs raw iteration (time)', 'rate vs raw iteration (raw ms / ms)', 'goal'],
    [
      ['raw iteration of every key/value of the store', raw.entries, raw.ms, raw.entries / (raw.ms / 1000), 1, 1, ''],
      ['audit (hash chain, replay, checkpoints, heads)', audit.transitions, audit.ms, audit.transitions / (audit.ms / 1000), audit.ms / raw.ms, raw.ms / audit.ms, '≥ 0.5'],
    ],
    [
      'Same directory, same process start-up; audit items are transitions, raw items are LevelDB entries (log, indexes, heads, checkpoints).',
      `Each pass ran ${REPEATS} times, alternating, each in a fresh process; the median run of each is reported.`,
    ],
  );

  // (6) peak RSS.
  await report(
    `Memory: peak RSS publishing and auditing ${big.toLocaleString('en-US')} transitions`,
    ['phase', 'peak RSS MiB', 'raw LevelDB peak RSS MiB', 'ratio vs raw', 'ratio vs idle process'],
    [
      ['idle process (node + classic-level open)', idle.peakRssMiB, idle.peakRssMiB, 1, 1],
      [`publish ${big.toLocaleString('en-US')} transitions (vs raw put)`, buildBig.peakRssMiB, rawBuild.peakRssMiB, buildBig.peakRssMiB / rawBuild.peakRssMiB, buildBig.peakRssMiB / idle.peakRssMiB],
      ['audit them (vs raw iteration)', audit.peakRssMiB, raw.peakRssMiB, audit.peakRssMiB / raw.peakRssMiB, audit.peakRssMiB / idle.peakRssMiB],
    ],
    [
      `Peak RSS = process.resourceUsage().maxRSS of a child process doing only that phase. Publishing: ${(big / (buildBig.ms / 1000)).toFixed(0)} transitions/s buffered vs ${(big / (rawBuild.ms / 1000)).toFixed(0)} raw puts/s.`,
    ],
  );
} finally {
  for (const dir of Object.values(dirs)) await removeDir(dir);
}
