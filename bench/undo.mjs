/**
 * Bench — undo by writer (store README "Undo"): undoing one writer's transitions over 1,000
 * transitions of a real history (eslint's package.json, ../shared/data/histories), against a
 * merge of the same size, on LevelDB in a temp dir, both as dry runs (each computes everything
 * it would publish: the merge its lineage walk, three states and the three-way merge; the undo
 * its read of the log, the replay and one restricted three-way merge per undone change).
 *
 * The history: `doc:main` at the history's first document, `doc:draft` forked from it, then the
 * next 1,000 revisions published on `doc:draft`, written in turn by two writers (`agent-7` every
 * third revision, `ana` the rest). Timed: `merge({ from: doc:draft, into: doc:main, dryRun })`
 * and `undo({ writer: { user: 'agent-7' }, since: 0, dryRun })`, alternating, 5 rounds each after
 * one untimed round; the ratio of the medians is the goal row (≤ 2).
 */
import { existsSync } from 'node:fs';
import { openStore } from '@stateflow/store-leveldb';
import { HISTORIES, distinctRevisions, loadDocs } from './history-writes.mjs';
import { median, removeDir, report, scaled, tempDir, time } from './lib.mjs';

const FILE = 'eslint-package-json.jsonl';
const TRANSITIONS = scaled(1000, 20);
const ROUNDS = 5;

if (!existsSync(HISTORIES)) {
  if (process.env.CI === 'true') throw new Error(`undo bench: real histories not found at ${HISTORIES}`);
  console.warn(`undo bench: real histories not found at ${HISTORIES}; skipped`);
  process.exit(0);
}

const revs = distinctRevisions(loadDocs(FILE));
if (revs.length < TRANSITIONS + 1) throw new Error(`undo bench: ${FILE} has ${revs.length} distinct revisions, fewer than ${TRANSITIONS + 1}`);
const dir = await tempDir('bench-undo');
const store = await openStore(dir);
try {
  await store.publish({ changes: { 'doc:main': revs[0].patch } });
  await store.fork('doc:main', 'doc:draft');
  let agent = 0;
  for (let i = 1; i <= TRANSITIONS; i++) {
    const user = i % 3 === 0 ? 'agent-7' : 'ana';
    if (user === 'agent-7') agent++;
    await store.publish({ changes: { 'doc:draft': revs[i].patch }, meta: { writer: { user, surface: 'http' } } });
  }
  const merge = () => store.merge({ from: 'doc:draft', into: 'doc:main', dryRun: true });
  const undo = () => store.undo({ writer: { user: 'agent-7' }, since: 0, dryRun: true });
  const first = await undo();
  await merge();
  const merges = [];
  const undos = [];
  for (let r = 0; r < ROUNDS; r++) {
    merges.push((await time(merge)).ms);
    undos.push((await time(undo)).ms);
  }
  const [m, u] = [median(merges), median(undos)];
  await report(
    `Undo by writer: ${TRANSITIONS.toLocaleString('en-US')} transitions of ${FILE.replace('.jsonl', '')}, LevelDB`,
    ['what', 'median ms', 'ratio', 'goal'],
    [
      [`merge dry run (doc:draft into doc:main, ${TRANSITIONS} transitions since the fork)`, m, 1, ''],
      [`undo dry run (agent-7: ${agent} of ${TRANSITIONS} transitions, ${first.conflicts.length} conflicts)`, u, u / m, '≤ 2'],
    ],
    [`${ROUNDS} rounds each, alternating, after one untimed round; ratios in the same run. ${first.undone.length} transitions undone.`],
  );
} finally {
  await store.close();
  await removeDir(dir);
}
