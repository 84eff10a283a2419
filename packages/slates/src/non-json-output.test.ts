import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { levelBackend, steppingClock } from '../test-fixtures/harness.js';
import { loadLadder } from './load-ladder.js';
import type { Ladder } from './load-ladder.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { storePerTest } from '@stateflow/test-kit';

/**
 * Model outputs whose first JSON block parses (`JSON.parse`) but is not a JSON value by core's
 * definition (snapshotJson): 1e999 → Infinity, a lone surrogate escape. Stored values and the
 * extraction engine share that one definition.
 */
let store: Store;
storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
  store = opened.store;
});

const to = (file: string) => ({ slate: 'M', folder: 'f', file });
const slates = [{ title: 'M', folders: [{ name: 'f', tokenLimit: 1000, files: [{ name: 'out.md' }, { name: 'else.md' }, { name: 'reg.md' }] }] }];
const objectWithA = { type: 'object', required: ['a'] };

function ladderWith(step: Record<string, unknown>): Ladder {
  return loadLadder({ name: 'nj', slates, steps: [{ id: 'gen', ...step }] });
}

async function call(ladder: Ladder, output: string) {
  return runLadder({ store, ladder, input: 'go', session: 's', model: scriptedModel([output]), clock: steppingClock() });
}

describe('slateWrite: extracted JSON is snapshotted with core snapshotJson before validation', () => {
  const ladder = () => ladderWith({ slateWrite: { to: to('out.md'), match: objectWithA } });

  it('{"a":1e999} is a refused no-op reported in refused; nothing is published', async () => {
    const result = await call(ladder(), '{"a":1e999}');
    expect(result.refused).toEqual([
      { slate: 'M', folder: 'f', file: 'out.md', step: 'gen', node: 0, reason: 'the output\'s first JSON block is not JSON at "/a": Infinity is not a JSON number' },
    ]);
    expect(result.transition).toBeNull();
    expect(store.lastSeq()).toBe(0);
    expect(result.slates.M?.f?.['out.md']).toBe('');
  });

  it('{"a":null} is refused the same way (reported, nothing published)', async () => {
    const result = await call(ladder(), '{"a":null}');
    expect(result.refused).toEqual([
      { slate: 'M', folder: 'f', file: 'out.md', step: 'gen', node: 0, reason: 'the value contains null, which slates never store' },
    ]);
    expect(result.transition).toBeNull();
    expect(store.lastSeq()).toBe(0);
  });

  it('a lone surrogate escape in a fenced block is refused', async () => {
    const result = await call(ladder(), 'Here:\n```json\n{"a": "\\ud800"}\n```');
    expect(result.refused.map((r) => r.reason)).toEqual([
      'the output\'s first JSON block is not JSON at "/a": a string with a lone surrogate is not valid Unicode text',
    ]);
    expect(store.lastSeq()).toBe(0);
  });

  it('first block wins: a later valid block is not written instead', async () => {
    const result = await call(ladder(), 'Draft: {"a": -1e999} Final: {"a": 2}');
    expect(result.refused.map((r) => r.reason)).toEqual([
      'the output\'s first JSON block is not JSON at "/a": -Infinity is not a JSON number',
    ]);
    expect(result.slates.M?.f?.['out.md']).toBe('');
  });

  it('an ordinary value is still written', async () => {
    const result = await call(ladder(), 'Result {"a": 1e300}');
    expect(result.refused).toEqual([]);
    expect(result.slates.M?.f?.['out.md']).toBe('{"a":1e+300}');
    expect(result.transition).toBe(1);
  });
});

describe('if.jsonMatches treats a non-JSON block as "no JSON"', () => {
  it('the node is pruned and the else branch runs; the step has no survivors', async () => {
    const ladder = ladderWith({
      if: { jsonMatches: objectWithA, then: 'continue', else: { write: { to: to('else.md'), from: 'output' } } },
    });
    const result = await call(ladder, '{"a":1e999}');
    expect(result.steps[0]?.survivors).toEqual([]);
    expect(result.output).toBeNull();
    expect(result.slates.M?.f).toEqual({ 'out.md': '', 'else.md': '{"a":1e999}', 'reg.md': '' });
  });

  it('the same output with a finite number matches', async () => {
    const ladder = ladderWith({ if: { jsonMatches: objectWithA, then: 'continue' } });
    const result = await call(ladder, '{"a":1e9}');
    expect(result.steps[0]?.survivors).toEqual([0]);
  });
});

describe('gated mergeByKey parses its source text with the same definition', () => {
  it('a source whose JSON holds 1e999 is refused and reported', async () => {
    const ladder = ladderWith({
      if: { equals: 'never', else: { write: { to: to('reg.md'), from: 'output', on: 'mergeByKey', key: 'id' } } },
    });
    const result = await call(ladder, '[{"id": "a", "n": 1e999}]');
    expect(result.refused).toEqual([
      { slate: 'M', folder: 'f', file: 'reg.md', step: 'gen', node: 0, reason: 'the value is not JSON at "/0/n": Infinity is not a JSON number' },
    ]);
    expect(result.transition).toBeNull();
    const ok = await call(ladder, '[{"id": "a", "n": 1}]');
    expect(ok.slates.M?.f?.['reg.md']).toBe('[{"id":"a","n":1}]');
  });
});
