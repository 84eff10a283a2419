/**
 * Bench — scaling: does a write cost what it changes, and a path read what it names? One key
 * changed per publish into one object of n keys (`lazy.memory`, n from 10 to 100,000) of a
 * LevelDB store in this process, buffered and fsync; a path read of one key of that object at
 * an old revision (store reopened, history cache off); `publishMany` of 1,000 one-key inputs
 * into objects of 10 and 10,000 keys; then the store's fixed cost per publish against the
 * physical limit (raw LevelDB put and batch, baselines.mjs), durable writes of the real
 * histories against SqliteSaver (history-writes.mjs), and peak RSS publishing 1M transitions
 * (scale-child.mjs). Every goal row is a ratio measured in this run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openStore } from '@stateflow/store-leveldb';
import { BATCH, publishManyRuns, rawRate, storeRate } from './baselines.mjs';
import { HISTORIES, HISTORY_FILES, distinctRevisions, loadDocs, openSqliteSaver, publishHistory, saveHistory } from './history-writes.mjs';
import { BENCH_DIR, REPEATS, median, removeDir, report, rng, scaled, tempDir, time } from './lib.mjs';

const STREAM = 'cwd:/bench';
const BIG = scaled(100_000, 1_000);
const SIZES = [10, scaled(1_000, 100), scaled(10_000, 500), BIG];
const PUBLISHES = { buffered: scaled(400, 40), fsync: scaled(200, 20) };
const WARM = 20;
const READS = scaled(100, 20);
const MANY = scaled(1_000, 50);
const MANY_BIG = scaled(10_000, 500);

/** `BENCH_ROWS=fixed,histories` runs only those groups of rows (publish, many, fixed, histories, rss); default all. */
const ROWS = new Set((process.env.BENCH_ROWS ?? 'publish,many,fixed,histories,rss').split(','));

const key = (i) => `k${i}`;
/** The object of n keys: `{ lazy: { memory: { k0: 'value 0', … } } }`. */
function objectOf(n) {
  const memory = {};
  for (let i = 0; i < n; i++) memory[key(i)] = `value ${i}`;
  return { lazy: { memory } };
}
const oneKey = (n, random, i) => ({ lazy: { memory: { [key(Math.floor(random() * n))]: `changed ${i}` } } });

/** The value at `steps` of a whole state: how a path is read where the store has no path read. */
function valueIn(value, steps) {
  for (const step of steps) value = value?.[step.key];
  return value;
}

/** A path read of `steps` at `rev`: the store's own when it has one, else the whole state's value there. */
async function readPath(store, rev, steps) {
  if (typeof store.valueAt === 'function') return store.valueAt(STREAM, rev, steps);
  return valueIn(await store.stateAt(STREAM, rev), steps);
}

/**
 * One store with the object of `n` keys, then `count` one-key publishes (after {@link WARM}
 * untimed ones): ms per publish. With `reads`, the store is reopened with its history cache off
 * and `reads` path reads of random keys at random old revisions are timed too (ms per read,
 * after untimed ones at other revisions).
 */
async function publishRun(n, durability, count, reads) {
  const dir = await tempDir('scaling');
  try {
    let store = await openStore(dir, { durability });
    await store.publish({ changes: { [STREAM]: objectOf(n) } });
    const random = rng(n);
    for (let i = 0; i < WARM; i++) await store.publish({ changes: { [STREAM]: oneKey(n, random, i) } });
    const { ms } = await time(async () => {
      for (let i = 0; i < count; i++) await store.publish({ changes: { [STREAM]: oneKey(n, random, WARM + i) } });
    });
    await store.close();
    if (reads === 0) return { publishMs: ms / count };
    const head = 1 + WARM + count;
    store = await openStore(dir, { cacheSize: 0 });
    const pick = () => ({ rev: 1 + Math.floor(random() * (head - 1)), steps: [{ kind: 'key', key: 'lazy' }, { kind: 'key', key: 'memory' }, { kind: 'key', key: key(Math.floor(random() * n)) }] });
    for (let i = 0; i < Math.min(20, reads); i++) {
      const { rev, steps } = pick();
      await readPath(store, rev, steps);
    }
    const picks = Array.from({ length: reads }, pick);
    const values = [];
    const read = await time(async () => {
      for (const { rev, steps } of picks) values.push(await readPath(store, rev, steps));
    });
    // Every read is checked against the whole state at its revision.
    for (const [i, { rev, steps }] of picks.entries()) {
      if (values[i] !== valueIn(await store.stateAt(STREAM, rev), steps)) throw new Error(`path read at rev ${rev} gave ${values[i]}`);
    }
    await store.close();
    return { publishMs: ms / count, readMs: read.ms / reads };
  } finally {
    await removeDir(dir);
  }
}

/** ms of one `publishMany` of {@link MANY} one-key inputs into the object of `n` keys (a fresh store). */
async function manyRun(n) {
  const dir = await tempDir('scaling-many');
  try {
    const store = await openStore(dir);
    await store.publish({ changes: { [STREAM]: objectOf(n) } });
    const random = rng(n + 1);
    await store.publishMany(Array.from({ length: 10 }, (_, i) => ({ changes: { [STREAM]: oneKey(n, random, i) } })));
    const inputs = Array.from({ length: MANY }, (_, i) => ({ changes: { [STREAM]: oneKey(n, random, i) } }));
    const { ms } = await time(() => store.publishMany(inputs));
    await store.close();
    return ms;
  } finally {
    await removeDir(dir);
  }
}

/** Durable write ms per revision of one history: stateflow (fsync) and SqliteSaver (synchronous=FULL). */
async function historyRun(revs) {
  const dirs = { sf: await tempDir('scaling-sf'), lg: await tempDir('scaling-lg') };
  try {
    const store = await openStore(dirs.sf, { durability: 'fsync' });
    const sf = await publishHistory(store, revs);
    await store.close();
    const saver = openSqliteSaver(path.join(dirs.lg, 'checkpoints.sqlite'));
    const lg = (await saveHistory(saver, revs)).ms;
    saver.db.close();
    return { sf: sf / revs.length, lg: lg / revs.length };
  } finally {
    for (const dir of Object.values(dirs)) await removeDir(dir);
  }
}

const rows = [];
const ratio = (label, of, base, goal, unit = 'ms') => rows.push([label, `${unit === 'ms' ? of.toPrecision(3) : of}`, `${unit === 'ms' ? base.toPrecision(3) : base}`, of / base, goal]);

// Publishes and path reads, by object size: REPEATS rounds, the sizes in turn; medians.
const byDurability = {};
if (ROWS.has('publish')) for (const durability of ['buffered', 'fsync']) {
  const runs = new Map(SIZES.map((n) => [n, []]));
  for (let r = 0; r < REPEATS; r++) for (const n of SIZES) runs.get(n).push(await publishRun(n, durability, PUBLISHES[durability], durability === 'buffered' ? READS : 0));
  byDurability[durability] = new Map([...runs].map(([n, list]) => [n, { publishMs: median(list.map((x) => x.publishMs)), readMs: median(list.map((x) => x.readMs ?? 0)) }]));
}
const small = SIZES[0];
if (ROWS.has('publish')) for (const n of SIZES.slice(1)) {
  const goal = n === BIG ? '≤ 2' : '';
  ratio(`one-key publish, buffered: ${n.toLocaleString('en-US')} ÷ ${small} keys (ms per publish)`, byDurability.buffered.get(n).publishMs, byDurability.buffered.get(small).publishMs, goal);
}
if (ROWS.has('publish')) for (const n of SIZES.slice(1)) {
  const goal = n === BIG ? '≤ 1.5' : '';
  ratio(`one-key publish, fsync: ${n.toLocaleString('en-US')} ÷ ${small} keys (ms per publish)`, byDurability.fsync.get(n).publishMs, byDurability.fsync.get(small).publishMs, goal);
}
if (ROWS.has('publish')) for (const n of SIZES.slice(1)) {
  const goal = n === BIG ? '≤ 3' : '';
  ratio(`path read of one key at an old revision: ${n.toLocaleString('en-US')} ÷ ${small} keys (ms per read)`, byDurability.buffered.get(n).readMs, byDurability.buffered.get(small).readMs, goal);
}

// publishMany of MANY inputs: 10 keys against MANY_BIG keys, alternating.
if (ROWS.has('many')) {
  const runs = { small: [], big: [] };
  for (let r = 0; r < REPEATS; r++) {
    runs.small.push(await manyRun(small));
    runs.big.push(await manyRun(MANY_BIG));
  }
  ratio(`publishMany of ${MANY.toLocaleString('en-US')} one-key inputs: ${MANY_BIG.toLocaleString('en-US')} ÷ ${small} keys (ms per call)`, median(runs.big), median(runs.small), '≤ 2');
}

// Fixed cost: a buffered single writer against raw awaited puts, publishMany against raw batches of its own records.
if (ROWS.has('fixed')) {
  const n = scaled(20_000, 200);
  const runs = [];
  for (let r = 0; r < REPEATS; r++) {
    const raw = await rawRate(n, false, 1);
    const ours = await storeRate(n, 'buffered', 1);
    runs.push(ours / raw);
  }
  rows.push([`buffered single publish ÷ raw awaited LevelDB put (rate, ${n.toLocaleString('en-US')} small patches)`, '', '', median(runs), '≥ 0.6']);
  const many = await publishManyRuns(scaled(20_000, BATCH), REPEATS);
  rows.push([`publishMany ÷ raw batch of the same records (rate, batches of ${BATCH})`, '', '', median(many.map((x) => x.ratio)), '≥ 0.8']);
}

// Durable writes of the real histories against SqliteSaver.
if (!ROWS.has('histories')) {
  // not asked for
} else if (existsSync(HISTORIES)) {
  for (const file of HISTORY_FILES) {
    const revs = distinctRevisions(loadDocs(file));
    const runs = [];
    for (let r = 0; r < REPEATS; r++) runs.push(await historyRun(revs));
    const sf = median(runs.map((x) => x.sf));
    const lg = median(runs.map((x) => x.lg));
    ratio(`durable write, ${file.replace('.jsonl', '')} (${revs.length} revisions): stateflow fsync ÷ SqliteSaver FULL (ms per revision)`, sf, lg, '≤ 1.0');
  }
} else if (process.env.CI === 'true') throw new Error(`scaling bench: real histories not found at ${HISTORIES}`);

// Peak RSS publishing 1M transitions (100 streams), in a child process of its own.
const transitions = scaled(1_000_000, 2_000);
if (ROWS.has('rss')) {
  const dir = await tempDir('scaling-rss');
  try {
    const stdout = execFileSync(process.execPath, ['--expose-gc', path.join(BENCH_DIR, 'scale-child.mjs'), 'build', dir, String(transitions), '100'], { encoding: 'utf8' });
    const { peakRssMiB } = JSON.parse(stdout.trim().split('\n').at(-1));
    rows.push([`peak RSS publishing ${transitions.toLocaleString('en-US')} transitions (MiB)`, peakRssMiB.toFixed(0), '', '', '≤ 256 MiB']);
  } finally {
    await removeDir(dir);
  }
}

await report(
  'Scaling: cost proportional to the change',
  ['figure', 'measured', 'baseline', 'ratio', 'goal'],
  rows,
  [
    `Publishes: the state { lazy: { memory: { k0 … k(n−1) } } } with short string values, one random key changed per publish; ${WARM} untimed publishes, then ${PUBLISHES.buffered} timed (buffered) or ${PUBLISHES.fsync} (fsync), each awaited, LevelDB in a temp dir, one process.`,
    `Path reads: the buffered store reopened with cacheSize 0; lazy.memory.k<random> at a random revision below the head, ${READS} timed after 20 untimed; through store.valueAt where the store has it, else stateAt and the value at the path; each checked against the whole state after the timed loop.`,
    `publishMany: one call of ${MANY} one-key inputs (each its own transition) after the object was written. Fixed cost: as append.mjs (baselines.mjs). Histories: as storage.mjs (history-writes.mjs), write only. Peak RSS: scale-child.mjs build, 100 streams, buffered.`,
    `Each size or case ran ${REPEATS} times; medians.`,
  ],
);
