/**
 * Author JSON Schemas of a ladder (`slateWrite.match`, `if.jsonMatches`, `retrieve.requestMatch`)
 * under hostile authors and hostile model output: patterns run in linear time, patterns the
 * linear engine cannot run are refused at load, and schemas that could never check a value
 * (self-recursion without descending into the value, `$async`) are refused at load.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { levelBackend } from '../test-fixtures/harness.js';
import { loadLadder, validateLadder } from './load-ladder.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { storePerTest } from '@stateflow/test-kit';

/** A one-step ladder whose slateWrite match is `match`. */
function ladderWith(match: object): object {
  return {
    name: 'schemas',
    slates: [{ title: 'Notes', folders: [{ name: 'log', tokenLimit: 1000, files: [{ name: 'log.md' }] }] }],
    steps: [
      {
        id: 'answer',
        fields: [{ name: 'Q', type: 'text', from: 'input.context' }],
        slateWrite: { to: { slate: 'Notes', folder: 'log', file: 'log.md' }, on: 'append', match },
      },
    ],
  };
}

function problems(match: object): string[] {
  const found = validateLadder(ladderWith(match));
  let code: string | undefined;
  try {
    loadLadder(ladderWith(match));
  } catch (err) {
    code = isStateflowError(err) ? err.code : 'not a StateflowError';
  }
  expect(code).toBe(found.length === 0 ? undefined : 'CONFIG_INVALID');
  return found;
}

describe('author patterns run on a linear-time engine', () => {
  let disk: { store: Store };
  storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
    disk = opened;
  });

  it('a catastrophic-backtracking pattern fed a steered value answers at once (no match, nothing written)', async () => {
    const match = { type: 'object', required: ['x'], properties: { x: { type: 'string', pattern: '^(a+)+$' } } };
    const ladder = loadLadder(ladderWith(match));
    // A backtracking engine takes ~2^29 steps here (tens of seconds, the event loop blocked).
    const steered = JSON.stringify({ x: `${'a'.repeat(29)}b` });
    const result = await runLadder({ store: disk.store, ladder, input: 'q', session: 's', model: scriptedModel([steered, `{"x": "aaa"}`]) });
    expect(result.transition).toBeNull();
    expect(result.slates.Notes?.log?.['log.md']).toBe('');
    const second = await runLadder({ store: disk.store, ladder, input: 'q', session: 's', model: scriptedModel([`{"x": "aaa"}`]) });
    expect(second.slates.Notes?.log?.['log.md']).toBe('{"x":"aaa"}');
  }, 5_000);

  it('patterns keep JSON Schema semantics: unanchored search, patternProperties, Unicode', () => {
    const ladder = loadLadder(
      ladderWith({
        type: 'object',
        properties: { id: { type: 'string', pattern: '[0-9]{3}' }, name: { type: 'string', pattern: '^\\p{L}+$' } },
        patternProperties: { '^tag_': { type: 'number' } },
      }),
    );
    const check = ladder.checks.match.get('answer');
    expect(check?.({ id: 'x123y', name: 'Zoë' })).toBe(true);
    expect(check?.({ id: 'x12y' })).toBe(false);
    expect(check?.({ name: 'Zoë1' })).toBe(false);
    expect(check?.({ tag_a: 1 })).toBe(true);
    expect(check?.({ tag_a: 'one' })).toBe(false);
  });

  it.each([
    ['lookahead', '^(?=a)a$'],
    ['negative lookahead', '^(?!b).*$'],
    ['lookbehind', '(?<=a)b'],
    ['backreference', '^(a)\\1$'],
  ])('a pattern with %s is CONFIG_INVALID at load, saying the engine cannot run it', (_kind, pattern) => {
    const found = problems({ type: 'object', properties: { x: { type: 'string', pattern } } });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('Step "answer": slateWrite match is not a valid JSON Schema: pattern');
    expect(found[0]).toContain('cannot run on the linear-time regular expression engine (RE2: no lookahead, lookbehind or backreferences)');
  });
});

describe('schemas that could never check a value are refused at load', () => {
  it.each<[string, object]>([
    ['$ref to the root', { $ref: '#' }],
    ['a $ref cycle through definitions', { definitions: { a: { $ref: '#/definitions/b' }, b: { allOf: [{ $ref: '#/definitions/a' }] } }, $ref: '#/definitions/a' }],
    ['a cycle under anyOf', { anyOf: [{ type: 'string' }, { not: { $ref: '#' } }] }],
  ])('%s is CONFIG_INVALID', (_name, match) => {
    const found = problems(match);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^Step "answer": slateWrite match refers to itself through "\$ref" without descending into the value \(at "[^"]*"\), so checking any value would never end$/);
  });

  it('recursion that descends into the value is fine', () => {
    const tree = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    expect(problems(tree)).toEqual([]);
    const check = loadLadder(ladderWith(tree)).checks.match.get('answer');
    expect(check?.({ name: 'a', children: [{ name: 'b', children: [] }] })).toBe(true);
    expect(check?.({ name: 'a', children: [{ children: [] }] })).toBe(false);
  });

  it('$async: true is CONFIG_INVALID (an async schema would never match)', () => {
    expect(problems({ $async: true, type: 'object' })).toEqual([
      'Step "answer": slateWrite match is asynchronous ($async: true), but ladder schemas are checked synchronously; remove $async',
    ]);
  });
});
