/**
 * Bench 3 — storage: bytes on disk per revision for the real histories in
 * ../shared/data/histories vs a snapshot-per-revision store on the same LevelDB and vs
 * LangGraph.js's SQLite checkpointer (SqliteSaver) saving the same documents as checkpoints;
 * plus write time and historical-read time against both.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { diff, jsonEqual } from '@stateflow/core';
import { openStore } from '@stateflow/store';
import { BENCH_DIR, dirBytes, removeDir, report, rng, tempDir, time } from './lib.mjs';

const HISTORIES = path.resolve(BENCH_DIR, '..', '..', 'shared', 'data', 'histories');
const FILES = ['eslint-package-json.jsonl', 'matrix-react-sdk-en_EN-json.jsonl'];
const STREAM = 'cwd:/repo';
const READS = 100;

/** The documents of a history, as recorded (keys such as "[number]" are ordinary data keys). */
function loadDocs(file) {
  return readFileSync(path.join(HISTORIES, file), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line).doc);
}

/** Keep the revisions that change the document (equal documents are an invalid no-op). */
function distinctRevisions(docs) {
  const kept = [];
  let prev = {};
  for (const doc of docs) {
    const patch = diff(prev, doc);
    if (Object.keys(patch).length > 0) kept.push({ doc, patch });
    prev = doc;
  }
  return kept;
}

async function stateflow(revs, readRevs) {
  const dir = await tempDir('storage-sf');
  try {
    let store = await openStore(dir, { durability: 'fsync' });
    const write = await time(async () => {
      for (const { patch } of revs) await store.publish({ changes: { [STREAM]: patch } });
    });
    await store.close();
    store = await openStore(dir, { cacheSize: 0 });
    await store.close(); // reopening folds LevelDB's write-ahead log into tables
    const bytes = await dirBytes(dir);
    store = await openStore(dir, { cacheSize: 0 });
    let wrong = 0;
    const read = await time(async () => {
      for (const r of readRevs) if (!jsonEqual(await store.stateAt(STREAM, r + 1), revs[r].doc)) wrong++;
    });
    await store.close();
    if (wrong > 0) throw new Error(`stateflow returned ${wrong} wrong historical states`);
    return { bytes, writeMs: write.ms, readMs: read.ms };
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
    const read = await time(async () => {
      for (const r of readRevs) JSON.parse(await db.get(key(r)));
    });
    await db.close();
    return { bytes, writeMs: write.ms, readMs: read.ms };
  } finally {
    await removeDir(dir);
  }
}

async function sqliteSaver(revs, readRevs) {
  const dir = await tempDir('storage-sqlite');
  try {
    let saver = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.sqlite'));
    let config = { configurable: { thread_id: 'repo', checkpoint_ns: '' } };
    const ids = [];
    const write = await time(async () => {
      for (let r = 0; r < revs.length; r++) {
        const checkpoint = { ...emptyCheckpoint(), id: uuid6(r), channel_values: { doc: revs[r].doc }, channel_versions: { doc: r + 1 } };
        config = await saver.put(config, checkpoint, { source: 'update', step: r, parents: {} });
        ids.push(config.configurable.checkpoint_id);
      }
    });
    saver.db.close(); // folds the WAL into the database file
    const bytes = await dirBytes(dir);
    saver = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.sqlite'));
    const read = await time(async () => {
      for (const r of readRevs) await saver.getTuple({ configurable: { thread_id: 'repo', checkpoint_ns: '', checkpoint_id: ids[r] } });
    });
    saver.db.close();
    return { bytes, writeMs: write.ms, readMs: read.ms };
  } finally {
    await removeDir(dir);
  }
}

if (!existsSync(HISTORIES)) {
  const message = `storage bench skipped: real histories not found at ${HISTORIES}`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(message);
} else {
  const rows = [];
  const notes = [];
  for (const file of FILES) {
    const docs = loadDocs(file);
    const revs = distinctRevisions(docs);
    const random = rng(11);
    const readRevs = Array.from({ length: READS }, () => Math.floor(random() * revs.length));
    const jsonBytes = revs.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r.doc)), 0);
    const sf = await stateflow(revs, readRevs);
    const snap = await snapshotLevel(revs, readRevs);
    const lg = await sqliteSaver(revs, readRevs);
    const n = revs.length;
    const name = file.replace('.jsonl', '');
    rows.push([name, 'bytes on disk / revision', sf.bytes / n, snap.bytes / n, lg.bytes / n, sf.bytes / snap.bytes, sf.bytes / lg.bytes]);
    rows.push([name, 'write ms / revision (durable)', sf.writeMs / n, snap.writeMs / n, lg.writeMs / n, sf.writeMs / snap.writeMs, sf.writeMs / lg.writeMs]);
    rows.push([name, 'historical read ms / read', sf.readMs / READS, snap.readMs / READS, lg.readMs / READS, sf.readMs / snap.readMs, sf.readMs / lg.readMs]);
    notes.push(
      `${name}: ${docs.length} revisions, ${n} that change the document; mean compact JSON document ${Math.round(jsonBytes / n).toLocaleString('en-US')} B.`,
    );
  }
  await report(
    'Storage: real histories vs snapshot-per-revision LevelDB and LangGraph SqliteSaver',
    ['history', 'metric', 'stateflow', 'snapshot LevelDB', 'SqliteSaver', 'ratio sf/snapshot', 'ratio sf/SqliteSaver'],
    rows,
    [
      ...notes,
      'Every store writes durably: stateflow publish with durability fsync (net patch per revision, checkpoint every 64), LevelDB put with sync: true of the whole document as JSON, SqliteSaver.put (WAL, synchronous FULL by default) of a checkpoint whose channel_values hold the document.',
      'Bytes: all files of the store directory after close (LevelDB reopened once so its log is folded into tables; SQLite closed so its WAL is checkpointed). Reads: 100 random revisions, stateflow with its history cache off; every stateflow read is checked against the document.',
      'Histories are used whole at every BENCH_SCALE.',
    ],
  );
}
