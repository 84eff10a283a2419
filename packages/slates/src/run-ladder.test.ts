import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { isStateflowError } from '@stateflow/core';
import { fixture, levelBackend, steppingClock } from '../test-fixtures/harness.js';
import { loadLadderFile } from './load-ladder.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { storePerTest } from '@stateflow/test-kit';

let store: Store;
storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
  store = opened.store;
  expect(store.lastSeq()).toBe(0);
});

async function run(file: string, outputs: string[], extra: { session?: string; input?: string } = {}) {
  const ladder = await loadLadderFile(fixture(file));
  const model = scriptedModel(outputs);
  const result = await runLadder({
    store,
    ladder,
    input: extra.input ?? 'What did we learn?',
    session: extra.session ?? 's1',
    model,
    clock: steppingClock(),
  });
  expect(model.remaining()).toBe(0);
  return { result, model };
}

describe('seed examples end to end (classic-level on disk)', () => {
  it('verify: accepted verdicts in trace/verified.md, rejected in lessons/failures.md', async () => {
    const outs = [
      '{"score": 5, "verdict": "accept"}',
      'Analysis: weak evidence. {"score": 2, "verdict": "reject"}',
      '{"score": 4, "verdict": "accept"}',
      '{"score": 3, "verdict": "accept"}',
      'I cannot score this.',
    ];
    const { result } = await run('reads-verify.yaml', outs);
    expect(result.slates).toEqual({
      Memory: {
        trace: { 'verified.md': `${outs[0]}\n\n${outs[2]}` },
        lessons: { 'failures.md': `${outs[1]}\n\n${outs[3]}\n\n${outs[4]}` },
      },
    });
    expect(result.steps[0]?.survivors).toEqual([0, 2]);
    expect(result.output).toBe(`${outs[0]}\n\n${outs[2]}`);
    expect(result.transition).toBe(1);
    const t = await store.transition(1);
    expect(t.changes.map((c) => c.stream)).toEqual(['slate:reads-verify:s1']);
  });

  it('mergeByKey registry: [a,b] then [b\',c] gives [a,b\',c]', async () => {
    await run('reads-registry.yaml', ['Entities: [{"id": "a", "name": "Ada"}, {"id": "b", "name": "Bob"}]']);
    const { result } = await run('reads-registry.yaml', [
      '```json\n[{"id": "b", "name": "Bobby", "lastSeen": "2026-01-02"}, {"id": "c", "name": "Cy"}]\n```',
    ]);
    expect(JSON.parse(result.slates.Registry?.entities?.['index.md'] as string)).toEqual([
      { id: 'a', name: 'Ada' },
      { id: 'b', name: 'Bobby', lastSeen: '2026-01-02' },
      { id: 'c', name: 'Cy' },
    ]);
    expect(result.transition).toBe(2);
    expect(await store.head('slate:reads-registry:s1')).toMatchObject({ rev: 2 });
  });

  it('mergeByKey rejects items failing the schema (silent no-op, nothing published)', async () => {
    const { result } = await run('reads-registry.yaml', ['[{"id": "a"}]']);
    expect(result.transition).toBeNull();
    expect(store.lastSeq()).toBe(0);
    expect(result.slates.Registry?.entities?.['index.md']).toBe('');
  });

  it('extract_facts: field extraction appends; prose and out-of-range confidence no-op', async () => {
    await run('reads-extract-facts.yaml', ['{"fact": "The API is rate limited to 10 rps.", "confidence": 0.8}']);
    await run('reads-extract-facts.yaml', ['No durable fact here.']);
    await run('reads-extract-facts.yaml', ['{"fact": "x", "confidence": 1.5}']);
    await run('reads-extract-facts.yaml', ['{"fact": "y", "confidence": 0.5, "source": "chat"}']); // additionalProperties: false
    const { result } = await run('reads-extract-facts.yaml', ['Found one: {"fact": "Deploys happen on Fridays.", "confidence": 0.95}']);
    expect(result.slates['Project Memory']?.facts?.['core.md']).toBe(
      'The API is rate limited to 10 rps.\n\nDeploys happen on Fridays.',
    );
    expect(store.lastSeq()).toBe(2);
  });

  it('extract: only confidence ≥ 0.7 persists', async () => {
    await run('reads-extract.yaml', ['{"fact": "low", "confidence": 0.69}']);
    const { result } = await run('reads-extract.yaml', ['{"fact": "high", "confidence": 0.7}']);
    expect(result.slates.Memory?.facts?.['core.md']).toBe('high');
  });

  it('verify_and_store: gate continue then slateWrite; abort ends the run and writes nothing', async () => {
    const ok = await run('reads-verify-and-store.yaml', ['{"answer": "42", "confidence": 0.95, "verified": true}']);
    expect(ok.result.slates.Memory?.verified?.['answers.md']).toBe('42');
    expect(ok.result.output).toBe('{"answer": "42", "confidence": 0.95, "verified": true}');
    const bad = await run('reads-verify-and-store.yaml', ['{"answer": "41", "confidence": 0.5, "verified": true}']);
    expect(bad.result.aborted).toEqual({ step: 'verify_and_store', node: 0, branch: 'else' });
    expect(bad.result.output).toBeNull();
    expect(bad.result.transition).toBeNull();
    expect(bad.result.slates.Memory?.verified?.['answers.md']).toBe('42');
  });

  it('policies: append joins with a blank line, overwrite replaces', async () => {
    await run('reads-policies.yaml', ['{"lesson": "L1"}', '{"answer": "A1"}', '[{"id": "x"}]']);
    const { result } = await run('reads-policies.yaml', ['{"lesson": "L2"}', '{"answer": "A2"}', '[{"id": "y"}]']);
    expect(result.slates).toEqual({
      Memory: {
        trace: { 'lessons.md': 'L1\n\nL2' },
        solution: { 'best.md': 'A2' },
        registry: { 'entities.md': '[{"id":"x"},{"id":"y"}]' },
      },
    });
  });

  it('maybe_record: RECORD writes all survivors of the previous step; SKIP writes nothing', async () => {
    const rec = await run('reads-maybe-record.yaml', ['Fact one.', 'Fact two.', 'RECORD']);
    expect(rec.result.slates['Project Memory']?.facts?.['core.md']).toBe('Fact one.\n\nFact two.');
    expect(rec.model.requests[2]?.messages).toEqual([
      { role: 'system', content: 'Output RECORD if worth saving, else SKIP.' },
      { role: 'user', content: 'Fact one.\n\nFact two.' },
    ]);
    const skip = await run('reads-maybe-record.yaml', ['Fact three.', 'Fact four.', 'SKIP']);
    expect(skip.result.transition).toBeNull();
    expect(skip.result.steps[1]?.survivors).toEqual([0]); // else: continue keeps the node
  });

  it('record (slates seed): gated write creates the undeclared wins/log.md', async () => {
    const { result } = await run('slates-record.yaml', ['Paris is the capital.', ' RECORD\n']);
    expect(result.slates).toEqual({ Lessons: { wins: { 'index.md': '', 'log.md': 'Paris is the capital.' } } });
  });

  it('Lessons draft + refine: "On the first call, the slate is empty; the field renders blank or "[]"", refine overwrites latest.md', async () => {
    const first = await run('slates-lessons.yaml', ['Draft answer.', 'Final. {"summary": "Use limits", "tags": ["calculus"]}']);
    const user0 = first.model.requests[0]?.messages[1]?.content as string;
    expect(user0).toBe('Context:\nWhat did we learn?\n\nWinsIndex:\n[]');
    expect(first.result.slates.Lessons?.wins?.['latest.md']).toBe('{"summary":"Use limits","tags":["calculus"]}');
    const second = await run('slates-lessons.yaml', ['Draft 2.', '{"summary": "Second", "tags": []}']);
    expect(second.result.slates.Lessons?.wins?.['latest.md']).toBe('{"summary":"Second","tags":[]}');
    const index = JSON.parse((second.model.requests[0]?.messages[1]?.content as string).split('WinsIndex:\n')[1] as string);
    // "On later calls, prior wins surface automatically": the blank index.md is not listed.
    expect(index.map((r: { file: string }) => r.file)).toEqual(['latest.md']);
    expect(index[0].size).toBe(Buffer.byteLength('{"summary":"Use limits","tags":["calculus"]}'));
  });

  it('Research Assistant: history accumulates across calls in a session, not across sessions', async () => {
    await run('sessions-research-assistant.yaml', ['{"exchange": "Q: gates? A: unitary ops"}'], { input: 'Explain quantum gates.' });
    const second = await run('sessions-research-assistant.yaml', ['{"exchange": "Q: QEC? A: redundancy"}']);
    expect(second.result.slates['Conversation Memory']).toEqual({
      history: { 'messages.md': '{"exchange":"Q: gates? A: unitary ops"}\n\n{"exchange":"Q: QEC? A: redundancy"}' },
      context: { 'facts.md': '' },
    });
    expect(second.model.requests[0]?.messages[1]?.content).toBe(
      'Question:\nWhat did we learn?\n\nHistory:\n{"exchange":"Q: gates? A: unitary ops"}\n\nFacts:\n',
    );
    const other = await run('sessions-research-assistant.yaml', ['no json'], { session: 's2' });
    expect(other.result.slates['Conversation Memory']?.history?.['messages.md']).toBe('');
    expect(second.result.stream).toBe('slate:Research Assistant:s1');
  });

  it('reflexion: a failed verification writes a lesson the next call reads', async () => {
    await run('sessions-reflexion.yaml', ['Attempt 1', '{"ok": false, "lesson": "Check units."}']);
    const { result, model } = await run('sessions-reflexion.yaml', ['Attempt 2', '{"ok": true, "lesson": "n/a"}']);
    expect(model.requests[0]?.messages[1]?.content).toBe('Task:\nWhat did we learn?\n\nLessons:\nCheck units.');
    expect(model.requests[1]?.messages[1]?.content).toBe('Attempt:\nAttempt 2');
    expect(result.slates['Reflexion Memory']?.lessons?.['failures.md']).toBe('Check units.');
  });

  it('shorthand folders: unbounded readWrite folders; files created on write', async () => {
    const { result } = await run('sessions-shorthand.yaml', ['{"lesson": "Cite sources."}']);
    expect(result.slates).toEqual({
      'Research Memory': { lessons: { 'failures.md': 'Cite sources.' }, retrieved: {}, notes: {} },
    });
    expect(result.stream).toBe('slate:@alice/researcher:s1');
  });

  it('slateRead modes: contents, one metatag, metatag across folder, index, tree, modified', async () => {
    const first = await run('reads-slateread.yaml', ['{"tags": ["physics", "units"]}']);
    const firstUser = first.model.requests[0]?.messages[1]?.content as string;
    expect(firstUser.startsWith('Core:\n\n\nCoreSummary:\n\n\nAllTags:\n[]\n\nFactsIndex:\n[{')).toBe(true);
    const { model } = await run('reads-slateread.yaml', ['nothing']);
    const user = model.requests[0]?.messages[1]?.content as string;
    expect(user.startsWith('Core:\n\n\nCoreSummary:\n\n\nAllTags:\n')).toBe(true);
    const fields = Object.fromEntries(
      user.split(/\n\n(?=(?:CoreSummary|AllTags|FactsIndex|FactsTree|CoreModified):\n)/).map((block) => {
        const [name, ...rest] = block.split(':\n');
        return [name, rest.join(':\n')];
      }),
    );
    expect(JSON.parse(fields.AllTags as string)).toEqual([{ file: 'core.md', value: ['physics', 'units'] }]);
    expect(JSON.parse(fields.FactsIndex as string)).toEqual([
      { file: 'core.md', size: 0, tokens: 0, created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z', metatags: { tags: ['physics', 'units'] } },
      { file: 'extra.md', size: 11, tokens: 3, created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(JSON.parse(fields.FactsTree as string)).toEqual({
      folder: 'facts',
      files: ['core.md', 'extra.md'],
      subfolders: [{ folder: 'archive', files: ['old.md'], subfolders: [] }],
    });
    expect(fields.CoreModified).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('source vocabulary at runtime', () => {
  it('nodeRef current / previous, node: N, literal, previous, accumulate, slate file', async () => {
    const { result } = await run('reads-sources.yaml', [
      'g0', 'g1', 'g2', 'g3', // generate
      'GO', 'NO', // route: node 0 routes g0; node 1 continues
      'ALL', // forms: previous = both route survivors' outputs
      'B', 'A', // more: node 0 → else node 3 (g3); node 1 → then nodeRef previous (g0)
      'FILE', // slates: verified.md contents
      'x', // accumulate: else → all generate nodes joined
    ]);
    expect(result.slates.Memory?.trace?.['out.md']).toBe(
      ['g0', 'GO\n\nNO', 'g3', 'g0', 'Verified baseline.', 'g0\n\ng1\n\ng2\n\ng3'].join('\n\n'),
    );
  });

  it('JSON metatag target receives survivors as an array; literal on else', async () => {
    // route: both continue without writing; forms: literal on else; more: node 3 twice;
    // slates: else reads the unset score metatag → nothing to write; accumulate: then → log metatag.
    const { result } = await run('reads-sources.yaml', ['g0', 'g1', 'g2', 'g3', 'NO', 'NO', 'x', 'B', 'B', 'META', 'JSON']);
    const state = await store.state('slate:reads-sources:s1');
    const out = (state as any).slates.Memory.folders.trace.files['out.md'];
    expect(out.metatags).toEqual({ log: ['g0', 'g1', 'g2', 'g3'] });
    expect(result.slates.Memory?.trace?.['out.md']).toBe('Literal text to write.\n\ng3\n\ng3');
    expect(result.steps.map((s) => [s.id, s.survivors])).toEqual([
      ['generate', [0, 1, 2, 3]], ['route', [0, 1]], ['forms', []], ['more', []], ['slates', []], ['accumulate', [0]],
    ]);
  });

  it('runtime resolution errors name the step and the branch; nothing is published', async () => {
    try {
      await run('reads-sources.yaml', ['g0', 'g1', 'g2', 'g3', 'NO', 'NO', 'x', 'A', 'A', 'unused', 'unused']);
      expect.unreachable();
    } catch (err) {
      expect(isStateflowError(err, 'SOURCE_UNRESOLVED')).toBe(true);
      expect((err as Error).message).toBe(
        'Step "more": gated write (then) from: { stepId: "generate" } with nodeRef: previous has no node before node 0',
      );
    }
    expect(store.lastSeq()).toBe(0);
  });

  it('a step whose previous step has zero survivors does not run', async () => {
    const ladder = {
      name: 'chain',
      steps: [
        { id: 'check', if: { equals: 'OK', then: 'continue' } },
        { id: 'after', systemPrompt: 'never called' },
      ],
    };
    const model = scriptedModel(['NOT OK']);
    const result = await runLadder({ store, ladder, input: 'x', session: 's', model });
    expect(result.skipped).toEqual(['after']);
    expect(result.output).toBeNull();
    expect(model.requests).toHaveLength(1);
  });
});

describe('one transition per call; sessions; conflicts', () => {
  it('without a session the call runs on fresh slates and publishes nothing', async () => {
    const ladder = await loadLadderFile(fixture('reads-extract.yaml'));
    const result = await runLadder({ store, ladder, input: 'x', model: scriptedModel(['{"fact": "f", "confidence": 0.9}']) });
    expect(result.slates.Memory?.facts?.['core.md']).toBe('f');
    expect(result.transition).toBeNull();
    expect(result.stream).toBeNull();
    expect(store.lastSeq()).toBe(0);
  });

  it('all writes of a multi-step call land in ONE transition', async () => {
    const { result } = await run('reads-policies.yaml', ['{"lesson": "L1"}', '{"answer": "A1"}', '[{"id": "x"}]']);
    expect(result.transition).toBe(1);
    expect(store.lastSeq()).toBe(1);
    const t = await store.transition(1);
    expect(t.changes).toHaveLength(1);
    expect(t.meta).toEqual({ kind: 'ladder-call', ladder: 'reads-policies', session: 's1' });
  });

  it('a CAS conflict re-applies the call’s writes on the newer head (no write lost)', async () => {
    const ladder = await loadLadderFile(fixture('reads-extract.yaml'));
    const stream = 'slate:reads-extract:s1';
    let interfered = false;
    const model = {
      async complete() {
        if (!interfered) {
          interfered = true;
          // Another call commits to the same session while this one is running.
          await runLadder({ store, ladder, input: 'x', session: 's1', model: scriptedModel(['{"fact": "other", "confidence": 0.9}']) });
        }
        return '{"fact": "mine", "confidence": 0.9}';
      },
    };
    const result = await runLadder({ store, ladder, input: 'x', session: 's1', model });
    expect(result.transition).toBe(2);
    expect(result.slates.Memory?.facts?.['core.md']).toBe('other\n\nmine');
    expect(await store.head(stream)).toMatchObject({ rev: 2 });
  });
});

describe('exit and abort', () => {
  it('the run stops after the exit step, whose survivors are the output', async () => {
    const ladder = { name: 'exit', exit: 'a', steps: [{ id: 'a', nodes: 2 }, { id: 'b' }] };
    const model = scriptedModel(['one', 'two']);
    const result = await runLadder({ store, ladder, input: 'q', session: 's', model });
    expect(result.output).toBe('one\n\ntwo');
    expect(result.steps.map((s) => s.id)).toEqual(['a']);
    expect(model.requests.map((r) => [r.step, r.node, r.messages])).toEqual([
      ['a', 0, [{ role: 'user', content: 'q' }]],
      ['a', 1, [{ role: 'user', content: 'q' }]],
    ]);
  });

  it('nodes: N model calls run in parallel (each node waits for all N calls to arrive)', async () => {
    const ladder = { name: 'parallel', steps: [{ id: 'a', nodes: 3 }] };
    const arrived: number[] = [];
    let release: () => void = () => {};
    const allArrived = new Promise<void>((resolve) => (release = resolve));
    const model = {
      async complete(request: { node: number }): Promise<string> {
        arrived.push(request.node);
        if (arrived.length === 3) release();
        await allArrived; // a sequential runner would wait here forever on node 0
        return `node ${request.node}`;
      },
    };
    const result = await runLadder({ store, ladder, input: 'q', model });
    expect(arrived).toEqual([0, 1, 2]);
    expect(result.output).toBe('node 0\n\nnode 1\n\nnode 2');
  });

  it('then: abort ends the run; gated writes made before it are committed', async () => {
    const ladder = {
      name: 'abort',
      slates: [{ title: 'S', folders: [{ name: 'f', tokenLimit: 100, files: [{ name: 'log.md' }] }] }],
      steps: [
        { id: 'note', if: { equals: 'NOTE', then: { write: { to: { slate: 'S', folder: 'f', file: 'log.md' }, from: 'output' } } } },
        { id: 'stop', if: { equals: 'STOP', then: 'abort', else: 'continue' } },
        { id: 'never' },
      ],
    };
    const model = scriptedModel(['NOTE', 'STOP']);
    const result = await runLadder({ store, ladder, input: 'q', session: 's', model });
    expect(result.aborted).toEqual({ step: 'stop', node: 0, branch: 'then' });
    expect(result.output).toBeNull();
    expect(result.transition).toBe(1);
    expect(result.slates.S?.f?.['log.md']).toBe('NOTE');
  });
});
