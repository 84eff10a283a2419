/**
 * Durable writes of a recorded document history, shared by the storage and scaling benches: the
 * real histories of ../shared/data/histories, reduced to the revisions that change the
 * document, written as stateflow publishes (`durability: 'fsync'`, one net patch per revision)
 * and as LangGraph SqliteSaver checkpoints (WAL, `synchronous = FULL`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { diff } from '@stateflow/core';
import { BENCH_DIR, time } from './lib.mjs';

export const HISTORIES = path.resolve(BENCH_DIR, '..', '..', 'shared', 'data', 'histories');
export const HISTORY_FILES = ['eslint-package-json.jsonl', 'matrix-react-sdk-en_EN-json.jsonl'];
/** The stream every stateflow history is written to. */
export const STREAM = 'cwd:/repo';

/** The documents of a history, as recorded (keys such as "[number]" are ordinary data keys). */
export function loadDocs(file) {
  return readFileSync(path.join(HISTORIES, file), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line).doc);
}

/** Keep the revisions that change the document (equal documents are an invalid no-op). */
export function distinctRevisions(docs) {
  const kept = [];
  let prev = {};
  for (const doc of docs) {
    const patch = diff(prev, doc);
    if (Object.keys(patch).length > 0) kept.push({ doc, patch });
    prev = doc;
  }
  return kept;
}

/** Milliseconds to publish every revision's patch to `store`, each awaited. */
export async function publishHistory(store, revs) {
  return (
    await time(async () => {
      for (const { patch } of revs) await store.publish({ changes: { [STREAM]: patch } });
    })
  ).ms;
}

/**
 * A SqliteSaver on `file`. Like for like with an fsync'd publish: better-sqlite3 builds SQLite
 * with WAL commits at synchronous=NORMAL (no fsync per commit); FULL syncs the WAL on every commit.
 */
export function openSqliteSaver(file) {
  const saver = SqliteSaver.fromConnString(file);
  saver.db.pragma('synchronous = FULL');
  return saver;
}

/** Save every revision's document as a checkpoint of one thread: `{ ms, ids }` (the checkpoint ids in order). */
export async function saveHistory(saver, revs) {
  let config = { configurable: { thread_id: 'repo', checkpoint_ns: '' } };
  const ids = [];
  const { ms } = await time(async () => {
    for (let r = 0; r < revs.length; r++) {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(r), channel_values: { doc: revs[r].doc }, channel_versions: { doc: r + 1 } };
      config = await saver.put(config, checkpoint, { source: 'update', step: r, parents: {} });
      ids.push(config.configurable.checkpoint_id);
    }
  });
  return { ms, ids };
}
