/**
 * Bench 3 — storage: bytes on disk per revision for the real histories in
 * ../shared/data/histories and for generated ones (`histories.mjs`: 1 KB, 30 KB and 1 MB
 * documents) vs a snapshot-per-revision store on the same LevelDB and vs LangGraph.js's SQLite
 * checkpointer (SqliteSaver) saving the same documents as checkpoints; plus durable write time
 * historical-read time against both: the first COLD_READS reads right after a reopen (cold: the
 * process has read nothing yet), then warm reads. Each history runs REPEATS times; every figure is
 * the median. The goal column holds performance round 2's goals (ratio to SqliteSaver).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { randomInt } from 'node:crypto';
import { jsonEqual } from '@stateflow/core';
import { stampWriter } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { generateHistory } from './histories.mjs';
import { HISTORIES, HISTORY_FILES as FILES, STREAM, distinctRevisions, loadDocs, openSqliteSaver, publishHistory, saveHistory } from './history-writes.mjs';
import { REPEATS, dirBytes, median, removeDir, report, rng, scaled, tempDir, time } from './lib.mjs';
/**
 * BENCH_WRITER=1: every stateflow publish carries `meta.writer` as `stateflow serve` stamps it for
 * an agent over `stateflow mcp` (user, surface, client name/version, the server's next request id), to
 * measure what recording who wrote each transition costs on disk (server README "Who wrote it").
 */
const WITH_WRITER = process.env.BENCH_WRITER === '1';
let requests = 0;
const boot = randomInt(36 ** 7, 36 ** 8).toString(36);
const writer = () => ({ user: 'local', surface: 'mcp-stdio', client: 'claude-code/2.0.14', request: `${boot}-${(++requests).toString(36)}` });
const READS = 100;
/** Reads timed right after the reopen, before any warm-up (at their own random revisions). */
const COLD_READS = 50;
/**
 * Untimed reads first on every store, at other random revisions, for at most WARM_MS: they warm
 * the code paths (a long-running process has its JIT warm), not the measured revisions. V8
 * optimises the store's read path after some 500 reads (3× faster from then on); SqliteSaver's
 * and LevelDB's reads are mostly native code and need none.
 */
const WARM_READS = 1000;
const WARM_MS = 2000;
/** Generated histories: target document size, revisions (scaled by BENCH_SCALE, at least 20). */
const GENERATED = [
  { name: 'generated 1 KB', targetBytes: 1024, revisions: scaled(1000, 20), seed: 1 },
  { name: 'generated 30 KB', targetBytes: 30 * 1024, revisions: scaled(400, 20), seed: 2 },
  { name: 'generated 1 MB', targetBytes: 1024 * 1024, revisions: scaled(60, 20), seed: 3 },
];

/** The revisions of the untimed warm-up reads (a seed of their own). */
function warmRevs(n) {
  const random = rng(5);
  const until = performance.now() + WARM_MS;
  return (function* () {
    for (let i = 0; i < WARM_READS && performance.now() < until; i++) yield Math.floor(random() * n);
  })();
}

/**
 * Time one store's reads after its reopen: `cold` revisions first (nothing read yet), then the
 * untimed warm-up, then `warm` revisions. `read(r)` reads revision index r and returns its value.
 * @returns {Promise<{ coldMs: number, readMs: number, values: unknown[] }>}
 */
async function readPhases(read, { cold, warm }, n) {
  const coldRun = await time(async () => {
    for (const r of cold) await read(r);
  });
  for (const r of warmRevs(n)) await read(r);
  const values = [];
  const warmRun = await time(async () => {
    for (const r of warm) values.push(await read(r));
  });
  return { coldMs: coldRun.ms, readMs: warmRun.ms, values };
}

async function stateflow(revs, readRevs) {
  const dir = await tempDir('storage-sf');
  try {
    let store = await openStore(dir, { durability: 'fsync' });
    if (WITH_WRITER) store = stampWriter(store, writer);
    const write = { ms: await publishHistory(store, revs) };
    await store.close();
    store = await openStore(dir, { cacheSize: 0 });
    await store.close(); // reopening folds LevelDB's write-ahead log into tables
    const bytes = await dirBytes(dir);
    store = await openStore(dir, { cacheSize: 0 });
    const { coldMs, readMs, values } = await readPhases((r) => store.stateAt(STREAM, r + 1), readRevs, revs.length);
    await store.close();
    const wrong = readRevs.warm.filter((r, i) => !jsonEqual(values[i], revs[r].doc)).length;
    if (wrong > 0) throw new Error(`stateflow returned ${wrong} wrong historical states`);
    return { bytes, writeMs: write.ms, coldMs, readMs };
  } finally {
    await removeDir(dir);
  }
}

async function snapshotLevel(revs, readRevs) {
  const dir = await tempDir('storage-snap');
  const key = (r) => `rev:${String(r).padStart(10, '0')}`;
  try {
    let db = new ClassicLevel(dir, { valueEncoding: 'utf8' });
    const write = await time(async () => {
      for (let r = 0; r < revs.length; r++) await db.put(key(r), JSON.stringify(revs[r].doc), { sync: true });
    });
    await db.close();
    db = new ClassicLevel(dir, { valueEncoding: 'utf8' });
    await db.open();
    await db.close();
    const bytes = await dirBytes(dir);
    db = new ClassicLevel(dir, { valueEncoding: 'utf8' });
    const { coldMs, readMs } = await readPhases(async (r) => JSON.parse(await db.get(key(r))), readRevs, revs.length);
    await db.close();
    return { bytes, writeMs: write.ms, coldMs, readMs };
  } finally {
    await removeDir(dir);
  }
}

async function sqliteSaver(revs, readRevs) {
  const dir = await tempDir('storage-sqlite');
  try {
    let saver = openSqliteSaver(path.join(dir, 'checkpoints.sqlite'));
    const { ms, ids } = await saveHistory(saver, revs);
    const write = { ms };
    saver.db.close(); // folds the WAL into the database file
    const bytes = await dirBytes(dir);
    saver = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.sqlite'));
    const read = (r) => saver.getTuple({ configurable: { thread_id: 'repo', checkpoint_ns: '', checkpoint_id: ids[r] } });
    const { coldMs, readMs } = await readPhases(read, readRevs, revs.length);
    saver.db.close();
    return { bytes, writeMs: write.ms, coldMs, readMs };
  } finally {
    await removeDir(dir);
  }
}

/** Run the three stores over one history REPEATS times; median of each figure. */
async function compare(docs) {
  const revs = distinctRevisions(docs);
  const random = rng(11);
  const pick = (count) => Array.from({ length: count }, () => Math.floor(random() * revs.length));
  const readRevs = { warm: pick(READS), cold: pick(COLD_READS) };
  const runs = { sf: [], snap: [], lg: [] };
  for (let i = 0; i < REPEATS; i++) {
    runs.sf.push(await stateflow(revs, readRevs));
    runs.snap.push(await snapshotLevel(revs, readRevs));
    runs.lg.push(await sqliteSaver(revs, readRevs));
  }
  const med = (list) => ({
    bytes: median(list.map((r) => r.bytes)),
    writeMs: median(list.map((r) => r.writeMs)),
    coldMs: median(list.map((r) => r.coldMs)),
    readMs: median(list.map((r) => r.readMs)),
  });
  const jsonBytes = revs.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r.doc)), 0);
  return { n: revs.length, total: docs.length, meanBytes: jsonBytes / revs.length, sf: med(runs.sf), snap: med(runs.snap), lg: med(runs.lg) };
}

const histories = [];
if (existsSync(HISTORIES)) for (const file of FILES) histories.push({ name: file.replace('.jsonl', ''), docs: () => loadDocs(file) });
else {
  const message = `storage bench: real histories not found at ${HISTORIES}`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`${message}; only generated histories run`);
}
for (const g of GENERATED) histories.push({ name: g.name, docs: () => generateHistory(g) });

const rows = [];
const notes = [];
for (const history of histories) {
  const { n, total, meanBytes, sf, snap, lg } = await compare(history.docs());
  const name = history.name;
  const row = (metric, key, per, goal) => [name, metric, sf[key] / per, snap[key] / per, lg[key] / per, sf[key] / snap[key], sf[key] / lg[key], goal];
  rows.push(row('bytes on disk / revision', 'bytes', n, '≤ 0.1'));
  rows.push(row('write ms / revision (durable)', 'writeMs', n, '≤ 1.0'));
  rows.push(row(`cold read ms / read (first ${COLD_READS} after reopen)`, 'coldMs', COLD_READS, '≤ 1.0'));
  rows.push(row('historical read ms / read (warm)', 'readMs', READS, '≤ 0.7 (aim 0.5)'));
  notes.push(`${name}: ${total} revisions, ${n} that change the document; mean compact JSON document ${Math.round(meanBytes).toLocaleString('en-US')} B.`);
}
await report(
  `Storage: real and generated histories vs snapshot-per-revision LevelDB and LangGraph SqliteSaver${WITH_WRITER ? ' (every transition with its meta.writer)' : ''}`,
  ['history', 'metric', 'stateflow', 'snapshot LevelDB', 'SqliteSaver', 'ratio sf/snapshot', 'ratio sf/SqliteSaver', 'goal sf/SqliteSaver'],
  rows,
  [
    ...notes,
    'Every store writes durably: stateflow publish with durability fsync (net patch per revision, checkpoints by the replay budget), LevelDB put with sync: true of the whole document as JSON, SqliteSaver.put of a checkpoint whose channel_values hold the document, in WAL mode with synchronous=FULL (set by the bench: better-sqlite3 defaults WAL commits to NORMAL, which does not sync a commit).',
    `Bytes: all files of the store directory after close (LevelDB reopened once so its log is folded into tables; SQLite closed so its WAL is checkpointed). Cold reads: the first ${COLD_READS} reads at random revisions right after the reopen. Warm reads: ${READS} random revisions after up to ${WARM_READS} untimed ones (at most ${WARM_MS} ms) at other random revisions, so code paths are warm; data cold: stateflow with its history cache off (cacheSize 0); every stateflow read is checked against the document after the timed loop.`,
    `Each history ran ${REPEATS} times (write, reopen, read on each store in turn); every figure is the median of the ${REPEATS}. The real histories are used whole at every BENCH_SCALE; the generated ones (seeded, bench/histories.mjs) scale their revision count.`,
  ],
);
