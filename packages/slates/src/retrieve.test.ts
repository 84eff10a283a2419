import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { fixture, levelBackend, steppingClock } from '../test-fixtures/harness.js';
import { loadLadderFile } from './load-ladder.js';
import type { Ladder } from './load-ladder.js';
import { RETRIEVAL_BUDGET_MESSAGE } from './retrieve.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { storePerTest } from '@stateflow/test-kit';

let store: Store;
let ladder: Ladder;
storePerTest(levelBackend, { beforeEach, afterEach }, async (opened) => {
  store = opened.store;
  ladder = await loadLadderFile(fixture('slates-research.yaml'));
});

const TAGS = '{"tags": ["calculus", "integration"]}';
const req = (request: object) => JSON.stringify({ request });

async function research(outputs: string[]) {
  const model = scriptedModel([TAGS, ...outputs]);
  const result = await runLadder({ store, ladder, input: 'How do I integrate x·eˣ?', session: 's', model, clock: steppingClock() });
  expect(model.remaining()).toBe(0);
  const calls = model.requests.slice(1);
  const docs = (i: number) => {
    const user = calls[i]?.messages[1]?.content as string;
    const at = user.indexOf('RetrievedDocuments:\n');
    return at === -1 ? undefined : JSON.parse(user.slice(at + 'RetrievedDocuments:\n'.length));
  };
  return { result, calls, docs };
}

describe('retrieve: the bounded loop over the slates seed research step', () => {
  it('files mode: the requested file is injected as RetrievedDocuments on the next round', async () => {
    const { result, calls, docs } = await research([req({ files: ['calculus.md', 'missing.md'] }), 'Use integration by parts.']);
    expect(docs(0)).toBeUndefined();
    expect(docs(1)).toEqual([{ path: 'calculus.md', contents: 'Integrate by parts.' }]);
    expect(calls.map((c) => c.round)).toEqual([1, 2]);
    expect(result.output).toBe('Use integration by parts.');
    expect(result.steps[1]?.retrieval).toEqual([{ fetches: 1, exhausted: false, documents: ['calculus.md'] }]);
  });

  it('subfolders mode: every file below the subfolder', async () => {
    const { docs } = await research([req({ subfolders: ['archive'] }), 'done']);
    expect(docs(1)).toEqual([{ path: 'archive/old.md', contents: 'Old win.' }]);
  });

  it('metatag mode: files whose metatag contains the value', async () => {
    const { docs } = await research([req({ metatag: { name: 'tags', contains: 'calculus' } }), 'done']);
    expect(docs(1)).toEqual([{ path: 'calculus.md', contents: 'Integrate by parts.' }]);
  });

  it('glob mode (picomatch): *.md is this folder only, **/*.md recurses', async () => {
    const one = await research([req({ glob: '*.md' }), 'done']);
    expect(one.docs(1).map((d: { path: string }) => d.path)).toEqual(['algebra.md', 'calculus.md']);
    const all = await research([req({ glob: '**/*.md' }), 'done']);
    expect(all.docs(1).map((d: { path: string }) => d.path)).toEqual(['algebra.md', 'archive/old.md', 'calculus.md']);
  });

  it('dedup across rounds: documents already retrieved are not fetched again', async () => {
    const { docs, result } = await research([
      req({ files: ['calculus.md'] }),
      req({ glob: '*.md' }),
      req({ files: ['calculus.md', 'algebra.md'] }),
      'final',
    ]);
    expect(docs(1).map((d: { path: string }) => d.path)).toEqual(['calculus.md']);
    expect(docs(2).map((d: { path: string }) => d.path)).toEqual(['calculus.md', 'algebra.md']);
    expect(docs(3).map((d: { path: string }) => d.path)).toEqual(['calculus.md', 'algebra.md']);
    expect(result.steps[1]?.retrieval).toEqual([{ fetches: 3, exhausted: false, documents: ['calculus.md', 'algebra.md'] }]);
  });

  it('maxRounds cut-off: after 5 fetches the budget message is injected and that call is final', async () => {
    const requests = Array.from({ length: 6 }, () => req({ files: ['calculus.md'] }));
    const { calls, result } = await research(requests);
    expect(calls).toHaveLength(6);
    for (const c of calls.slice(0, 5)) expect(c.messages.at(-1)?.content).not.toBe(RETRIEVAL_BUDGET_MESSAGE);
    expect(calls[5]?.messages.at(-1)).toEqual({ role: 'user', content: 'Retrieval budget exhausted. Produce your final answer now.' });
    expect(result.output).toBe(requests[5]);
    expect(result.steps[1]?.retrieval).toEqual([{ fetches: 5, exhausted: true, documents: ['calculus.md'] }]);
  });

  it('a non-request output ends the loop at once (no retrieval)', async () => {
    const { calls, result } = await research(['Direct answer.']);
    expect(calls).toHaveLength(1);
    expect(result.steps[1]?.retrieval).toEqual([{ fetches: 0, exhausted: false, documents: [] }]);
  });

  it('retrieved files count as reads for LRU, recorded in the call’s one transition', async () => {
    const { result } = await research([req({ files: ['algebra.md'] }), 'done']);
    expect(result.transition).toBe(1);
    const state = (await store.state('slate:slates-research:s')) as any;
    expect(state.slates.Lessons.folders.wins.files['algebra.md'].lastRead).toBe('2026-01-01T00:00:00.000Z');
    expect(state.slates.Lessons.folders.wins.files['notes.txt'].lastRead).toBeUndefined();
  });
});
