/**
 * The runner's streamed output (`onOutput`) and its token usage (`result.usage`), on a real
 * classic-level store: what streams, in which order, and when it is held back (gates, retrieval,
 * parallel nodes); usage summed over every call, unknown when one call does not report it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { levelBackend, steppingClock } from '../test-fixtures/harness.js';
import type { CompleteOptions, Model, ModelRequest } from './model.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { loadTokenCounter } from './token-counter.js';
import { storePerTest } from '@stateflow/test-kit';

let store: Store;
storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
  store = opened.store;
});

const TWO_STEPS = `
name: two-steps
slates:
  - title: Memory
    folders:
      - { name: notes, tokenLimit: 1000, files: [{ name: log.md }] }
steps:
  - id: draft
    fields: [{ name: Q, type: text, from: input.context }]
  - id: answer
    nodes: 2
    fields: [{ name: Draft, type: text, from: previous }]
    slateWrite:
      to: { slate: Memory, folder: notes, file: log.md }
      match: { type: object, required: [note] }
`;

const GATED = `
name: gated
steps:
  - id: answer
    nodes: 2
    fields: [{ name: Q, type: text, from: input.context }]
    if: { equals: "ok", else: abort }
`;

/** A model whose answers the test releases one by one, streaming each word by word. */
function controlledModel(): Model & { release(index: number, output: string): void; calls: ModelRequest[] } {
  const waiting = new Map<number, (output: string) => void>();
  const early = new Map<number, string>();
  const calls: ModelRequest[] = [];
  return {
    calls,
    release(index, output) {
      const resolve = waiting.get(index);
      if (resolve === undefined) early.set(index, output);
      else resolve(output);
    },
    async complete(request: ModelRequest, options?: CompleteOptions) {
      const index = calls.push(request) - 1;
      const output = early.get(index) ?? (await new Promise<string>((resolve) => waiting.set(index, resolve)));
      for (const piece of output.match(/\s*\S+/g) ?? []) options?.onDelta?.(piece);
      return output;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('runLadder onOutput', () => {
  it('streams only the exit step, node 0 live, node 1 held until node 0 is done; the pieces join to output', async () => {
    const model = controlledModel();
    const pieces: string[] = [];
    const running = runLadder({ store, ladder: TWO_STEPS, input: 'q', session: 's', model, clock: steppingClock(), onOutput: (t) => pieces.push(t) });
    await tick();
    model.release(0, 'draft text');
    await tick();
    expect(pieces).toEqual([]); // the first step never streams
    model.release(2, 'second node {"note": "b"}');
    await tick();
    expect(pieces).toEqual([]); // node 1 is held behind node 0
    model.release(1, 'first node {"note": "a"}');
    const result = await running;
    expect(pieces.join('')).toBe(result.output);
    expect(result.output).toBe('first node {"note": "a"}\n\nsecond node {"note": "b"}');
    expect(pieces.slice(0, 4)).toEqual(['first', ' node', ' {"note":', ' "a"}']);
    expect(result.transition).toBe(1);
  });

  it('streams node 0 as its tokens arrive, before any node has finished', async () => {
    const pieces: string[] = [];
    let release: () => void = () => undefined;
    const model: Model = {
      async complete(request, options) {
        if (request.step === 'draft') return 'd';
        if (request.node === 1) return 'n1';
        options?.onDelta?.('partial ');
        await new Promise<void>((resolve) => (release = resolve));
        options?.onDelta?.('rest');
        return 'partial rest';
      },
    };
    const running = runLadder({ store, ladder: TWO_STEPS, input: 'q', model, onOutput: (t) => pieces.push(t) });
    await tick();
    await tick();
    expect(pieces).toEqual(['partial ']);
    release();
    const result = await running;
    expect(pieces).toEqual(['partial ', 'rest', '\n\nn1']);
    expect(result.output).toBe('partial rest\n\nn1');
  });

  it('with a gate, streams the survivors only once the gates decided; an abort streams nothing', async () => {
    const pieces: string[] = [];
    const passed = await runLadder({ store, ladder: GATED, input: 'q', model: scriptedModel(['ok', 'ok']), onOutput: (t) => pieces.push(t) });
    expect(pieces).toEqual(['ok\n\nok']);
    expect(passed.output).toBe('ok\n\nok');
    pieces.length = 0;
    const aborted = await runLadder({ store, ladder: GATED, input: 'q', model: scriptedModel(['ok', 'no']), onOutput: (t) => pieces.push(t) });
    expect(aborted.aborted).toEqual({ step: 'answer', node: 1, branch: 'else' });
    expect(aborted.output).toBeNull();
    expect(pieces).toEqual([]);
  });

  it('with retrieve, streams only the final answer, not the retrieval requests', async () => {
    const ladder = `
name: retrieving
slates:
  - title: KB
    folders:
      - { name: docs, tokenLimit: 1000, files: [{ name: a.md, init: "alpha" }] }
steps:
  - id: answer
    fields: [{ name: Q, type: text, from: input.context }]
    retrieve: { to: { slate: KB, folder: docs }, as: Docs, maxRounds: 2, requestMatch: { type: object, required: [request] } }
`;
    const pieces: string[] = [];
    const result = await runLadder({
      store,
      ladder,
      input: 'q',
      model: scriptedModel(['{"request": {"files": ["a.md"]}}', 'alpha is the answer']),
      onOutput: (t) => pieces.push(t),
    });
    expect(result.output).toBe('alpha is the answer');
    expect(pieces).toEqual(['alpha is the answer']);
  });

  it('a model whose streamed text is not the start of its answer is MODEL_FAILED, and nothing is published', async () => {
    const model: Model = {
      async complete(request, options) {
        options?.onDelta?.('one thing');
        return request.step === 'draft' ? 'd' : 'another thing';
      },
    };
    await expect(runLadder({ store, ladder: TWO_STEPS, input: 'q', session: 's', model, onOutput: () => undefined })).rejects.toMatchObject({
      code: 'MODEL_FAILED',
      message: 'The model streamed text that is not the start of its answer in step "answer" (node 0)',
    });
    expect(store.lastSeq()).toBe(0);
  });
});

describe('runLadder usage', () => {
  it('is the sum over every model call (steps, nodes) of the tokenizer counts the scripted model reports', async () => {
    const model = scriptedModel(['draft text', 'first {"note": "a"}', 'second']);
    const result = await runLadder({ store, ladder: TWO_STEPS, input: 'What now?', model });
    const count = await loadTokenCounter();
    const prompt = model.requests.reduce((sum, r) => sum + r.messages.reduce((n, m) => n + count(m.content), 0), 0);
    const completion = count('draft text') + count('first {"note": "a"}') + count('second');
    expect(model.requests).toHaveLength(3);
    expect(result.usage).toEqual({ promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion });
  });

  it('is null when any call does not report usage (never a partial sum)', async () => {
    const reported = scriptedModel(['draft text', 'first']);
    const model: Model = {
      complete: (request) => (request.node === 1 ? Promise.resolve('plain string answer') : reported.complete(request)),
    };
    const result = await runLadder({ store, ladder: TWO_STEPS, input: 'q', model });
    expect(result.output).toBe('first\n\nplain string answer');
    expect(result.usage).toBeNull();
  });
});
