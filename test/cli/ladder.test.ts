/**
 * `stateflow ladder validate` and `stateflow ladder run` end to end through the built bin, with a
 * scripted model and a LevelDB store on disk (slates README "API").
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, jsonLines, removeDir, stateflow, tempDir } from './helpers.js';

const LADDER = `name: notes
exit: answer
slates:
  - title: Conversation Memory
    folders:
      - name: history
        tokenLimit: 5000
        access: readWrite
        evictionPolicy: FIFO
        files:
          - { name: messages.md, init: blank }
      - name: context
        tokenLimit: 2000
        access: readWrite
        files:
          - { name: facts.md, init: blank }
steps:
  - id: answer
    fields:
      - { name: Question, type: text, from: input.context }
      - { name: History, type: slateRead, from: { slate: "Conversation Memory", folder: history, file: messages.md } }
      - { name: Facts, type: slateRead, from: { slate: "Conversation Memory", folder: context, file: facts.md } }
    systemPrompt: "Answer the question, using History and Facts as context."
    slateWrite:
      to: { slate: "Conversation Memory", folder: history, file: messages.md }
      on: append
      match: { type: object, required: [exchange], properties: { exchange: { type: string } } }
`;

let root: string;
let dir: string;
let ladder: string;
let script: string;

beforeAll(async () => {
  root = await tempDir();
  dir = path.join(root, 'store');
  ladder = path.join(root, 'notes.yaml');
  script = path.join(root, 'model.jsonl');
  await writeFile(ladder, LADDER);
  await writeFile(script, `${JSON.stringify({ content: 'Friday. {"exchange": "Q: when do we ship? A: Friday."}' })}\n`);
});

afterAll(async () => {
  await removeDir(root);
});

describe('stateflow ladder', () => {
  it('validate: a valid config exits 0', async () => {
    const result = await stateflow(['ladder', 'validate', ladder]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${ladder}: valid\n`);
    expect(json(await stateflow(['--json', 'ladder', 'validate', ladder]))).toEqual({ problems: [] });
  });

  it('validate: prints every problem on its own line and exits 2', async () => {
    const bad = path.join(root, 'bad.yaml');
    await writeFile(bad, LADDER.replace('slate: "Conversation Memory", folder: context', 'slate: "Project Memory", folder: context'));
    const result = await stateflow(['ladder', 'validate', bad]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('Step "answer": slateRead field "Facts" references non-existent slate "Project Memory"\n');
    const missing = await stateflow(['--json', 'ladder', 'validate', path.join(root, 'absent.yaml')]);
    expect(missing.code).toBe(3);
    expect((json(missing) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('validate: a match schema that refers to itself ({$ref: "#"}) or is $async exits 2 naming it', async () => {
    const selfRef = path.join(root, 'selfref.yaml');
    await writeFile(selfRef, LADDER.replace(/match: .*/, 'match: { $ref: "#" }'));
    const result = await stateflow(['ladder', 'validate', selfRef]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      'Step "answer": slateWrite match refers to itself through "$ref" without descending into the value (at "/$ref"), so checking any value would never end\n',
    );
    const asyncSchema = path.join(root, 'async.yaml');
    await writeFile(asyncSchema, LADDER.replace(/match: \{ type: object,/, 'match: { $async: true, type: object,'));
    const async = await stateflow(['ladder', 'validate', asyncSchema]);
    expect(async.code).toBe(2);
    expect(async.stdout).toContain('Step "answer": slateWrite match is asynchronous ($async: true)');
  });

  it('run: an aborted run says so — outcome "aborted", the step, node and branch — in --json and in text', async () => {
    const gated = path.join(root, 'gated.yaml');
    await writeFile(gated, `name: gated
steps:
  - id: check
    fields:
      - { name: Q, type: text, from: input.context }
    if: { equals: "ok", then: continue, else: abort }
  - id: answer
    systemPrompt: "Answer."
`);
    const no = path.join(root, 'no.jsonl');
    await writeFile(no, `${JSON.stringify({ content: 'not ok' })}\n`);
    const result = await stateflow(['--dir', dir, '--json', 'ladder', 'run', gated, '--input', 'x', '--model', `scripted:${no}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toMatchObject({
      outcome: 'aborted',
      aborted: { step: 'check', node: 0, branch: 'else', message: 'The ladder aborted at step "check" (node 0): its gate did not match and its else is abort.' },
      output: null,
    });
    const text = await stateflow(['--dir', dir, 'ladder', 'run', gated, '--input', 'x', '--model', `scripted:${no}`]);
    expect(text.stdout.split('\n')[0]).toBe('(aborted) The ladder aborted at step "check" (node 0): its gate did not match and its else is abort.');
  });

  it('run --json with a session: output, one transition, slates, evicted, refused', async () => {
    const result = await stateflow(['--dir', dir, '--session', 's1', '--json', 'ladder', 'run', ladder, '--input', 'When do we ship?', '--model', `scripted:${script}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({
      outcome: 'completed',
      output: 'Friday. {"exchange": "Q: when do we ship? A: Friday."}',
      transition: 1,
      slates: { 'Conversation Memory': { history: { 'messages.md': '{"exchange":"Q: when do we ship? A: Friday."}' }, context: { 'facts.md': '' } } },
      evicted: [],
      refused: [],
    });
    const log = jsonLines((await stateflow(['--dir', dir, '--json', 'log'])).stdout) as { changes: { stream: string }[] }[];
    expect(log.map((t) => t.changes.map((c) => c.stream))).toEqual([['slate:notes:s1']]);
  });

  it('run without a session publishes nothing; a bad --model spec exits 2', async () => {
    const result = await stateflow(['--dir', dir, '--json', 'ladder', 'run', ladder, '--input', 'Hi', '--model', `scripted:${script}`]);
    expect(result.code, result.stderr).toBe(0);
    expect((json(result) as { transition: unknown }).transition).toBeNull();
    const bad = await stateflow(['--dir', dir, '--json', 'ladder', 'run', ladder, '--input', 'Hi', '--model', 'gpt-4o']);
    expect(bad.code).toBe(2);
    expect((json(bad) as { error: { code: string } }).error.code).toBe('USAGE');
  });
});
