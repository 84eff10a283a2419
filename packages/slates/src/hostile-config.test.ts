/**
 * Hostile ladder configs and runLadder inputs (test/harness/README.md "Bad-input fuzz"): every public entry
 * point (loadLadder, loadLadderFile, validateLadder, validateLadderFile, runLadder) answers bad
 * input with a StateflowError and a stable code — never a yaml ReferenceError, a RangeError or
 * a TypeError — and validateLadder lists the same problem. runLadder publishes nothing then.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { fixture, levelBackend, steppingClock } from '../test-fixtures/harness.js';
import { MAX_PATCH_DEPTH } from '@stateflow/core';
import { MAX_CONFIG_DEPTH, loadLadder, loadLadderFile, validateLadder, validateLadderFile } from './load-ladder.js';
import type { RunLadderOptions } from './run-ladder-types.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { rejectionOf, removeDir, storePerTest, tempDir } from '@stateflow/test-kit';

/** validateLadder's problems and loadLadder's CONFIG_INVALID agree for `input`. */
async function configProblems(input: string | object): Promise<string[]> {
  const problems = validateLadder(input);
  const err = await rejectionOf(() => loadLadder(input), 'CONFIG_INVALID');
  expect(err.details.problems).toEqual(problems);
  return problems;
}

function cyclic(): Record<string, unknown> {
  const o: Record<string, unknown> = { name: 'x', steps: [] };
  o.self = o;
  return o;
}

describe('YAML text', () => {
  it('an unresolved alias is a problem, not a ReferenceError', async () => {
    expect(await configProblems('name: x\nsteps: [*nowhere]')).toEqual(['YAML: Unresolved alias (the anchor must be set before the alias): nowhere']);
  });

  it('a billion-laughs alias bomb stops at the alias budget', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].entries()) {
      const prev = String.fromCharCode('a'.charCodeAt(0) + i);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    expect(await configProblems(levels.join('\n'))).toEqual([
      'YAML: Excessive alias count indicates a resource exhaustion attack (more than 100 alias expansions)',
    ]);
  });

  it('a few ordinary aliases still load', () => {
    const text = 'name: x\nsteps:\n  - &s {id: a, nodes: 1}\n';
    expect(validateLadder(text)).not.toContainEqual(expect.stringMatching(/^YAML/));
  });

  it('a self-referencing anchor (a cycle) is a problem', async () => {
    expect(await configProblems('name: x\nsteps: []\nloop: &l [*l]')).toEqual(['Config loop[0]: the value contains a cycle; a ladder config must be JSON data']);
  });

  it('duplicate keys are a problem with their position', async () => {
    expect(await configProblems('name: a\nname: b\nsteps: []')).toEqual(['YAML: Map keys must be unique at line 2, column 1']);
  });

  it('nesting beyond MAX_CONFIG_DEPTH is refused before the composer recurses', async () => {
    for (const n of [MAX_CONFIG_DEPTH + 1, 20_000]) {
      expect(await configProblems(`name: x\nsteps: ${'['.repeat(n)}${']'.repeat(n)}`)).toEqual([`YAML: collections nest more than ${MAX_CONFIG_DEPTH} levels deep`]);
    }
    expect(await configProblems('- '.repeat(5_000) + 'x')).toEqual([`YAML: collections nest more than ${MAX_CONFIG_DEPTH} levels deep`]);
  });

  it('.nan, .inf and escaped lone surrogates are not JSON', async () => {
    expect(await configProblems('name: x\nsteps: []\nn: .nan')).toEqual(['Config n: NaN is not a JSON number; a ladder config must be JSON data']);
    expect(await configProblems('name: x\nsteps: []\nn: -.inf')).toEqual(['Config n: -Infinity is not a JSON number; a ladder config must be JSON data']);
    expect(await configProblems('name: "a\\ud800"\nsteps: []')).toEqual([
      'Config name: a string with a lone surrogate is not valid Unicode text; a ladder config must be JSON data',
    ]);
  });

  it('__proto__ is an ordinary (unknown) key and pollutes nothing', async () => {
    const problems = await configProblems('name: x\nsteps: []\n__proto__: {polluted: 1}');
    expect(problems).toContain('Config: has unknown key "__proto__"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('config objects', () => {
  class Point {
    x = 1;
  }
  it.each<[string, object, string]>([
    ['a BigInt', { name: 'x', steps: [], n: 1n }, 'Config n: a bigint is not a JSON value; a ladder config must be JSON data'],
    ['a function in a step', { name: 'x', steps: [() => 1] }, 'Step #1: a function is not a JSON value; a ladder config must be JSON data'],
    ['a symbol', { name: Symbol('x'), steps: [] }, 'Config name: a symbol is not a JSON value; a ladder config must be JSON data'],
    ['a cycle', cyclic(), 'Config self: the value contains a cycle; a ladder config must be JSON data'],
    ['a Date', { name: 'x', steps: [], at: new Date(0) }, 'Config at: an instance of Date is not a plain JSON object; a ladder config must be JSON data'],
    ['a class instance as the config', new Point(), 'Config: an instance of Point is not a plain JSON object; a ladder config must be JSON data'],
    ['undefined', { name: 'x', steps: [undefined] }, 'Step #1: a undefined is not a JSON value; a ladder config must be JSON data'],
    ['undefined as a member', { name: 'x', steps: [], exit: undefined }, 'Config exit: a undefined is not a JSON value; a ladder config must be JSON data'],
    ['a sparse array', { name: 'x', steps: [, 1] }, 'Step #1: a sparse array (hole) is not JSON; a ladder config must be JSON data'],
  ])('%s is one CONFIG_INVALID problem', async (_, config, problem) => {
    expect(await configProblems(config)).toEqual([problem]);
  });

  it('deep nesting is a problem, not a stack overflow', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(await configProblems({ name: 'x', steps: [], deep })).toEqual([
      `Config deep${'.a'.repeat(MAX_PATCH_DEPTH - 1)}: containers are nested more than ${MAX_PATCH_DEPTH} levels deep; a ladder config must be JSON data`,
    ]);
  });

  it('a throwing getter is a problem', async () => {
    const config = { name: 'x' };
    Object.defineProperty(config, 'steps', { enumerable: true, get: () => { throw new Error('getter exploded'); } });
    expect(await configProblems(config)).toEqual(['Config: cannot be read as JSON (getter exploded); a ladder config must be JSON data']);
  });

  it('non-object inputs are one problem', async () => {
    for (const input of [5, null, undefined, [], true]) {
      expect(await configProblems(input as unknown as object)).toEqual(['Config: must be a mapping (YAML) or an object (JSON)']);
    }
  });
});

describe('config files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('slates-hostile');
  });
  afterEach(async () => removeDir(dir));

  it('non-string and empty paths are INPUT_INVALID (a number is never read as a file descriptor)', async () => {
    for (const file of [0, 1, 12n, null, undefined, {}, '']) {
      const err = await rejectionOf(() => loadLadderFile(file as unknown as string), 'INPUT_INVALID');
      expect(err.details).toEqual({ field: 'file', reason: 'type' });
      await rejectionOf(() => validateLadderFile(file as unknown as string), 'INPUT_INVALID');
    }
  });

  it('bytes that are not UTF-8 are CONFIG_INVALID', async () => {
    const file = path.join(dir, 'bad.yaml');
    await writeFile(file, Buffer.concat([Buffer.from('name: "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"\nsteps: []\n')]));
    for (const load of [loadLadderFile, validateLadderFile]) {
      const err = await rejectionOf(() => load(file), 'CONFIG_INVALID');
      expect(err.details.problems).toEqual([`File: "${file}" is not valid UTF-8 text`]);
    }
  });

  it('a missing file is NOT_FOUND; an alias bomb file is CONFIG_INVALID', async () => {
    await rejectionOf(() => loadLadderFile(path.join(dir, 'missing.yaml')), 'NOT_FOUND');
    const file = path.join(dir, 'bomb.yaml');
    await writeFile(file, 'a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n');
    await rejectionOf(() => loadLadderFile(file), 'CONFIG_INVALID');
    expect(await validateLadderFile(file)).toHaveLength(1);
  });
});

describe('runLadder inputs (classic-level on disk)', () => {
  let store: Store;
  storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
    store = opened.store;
    expect(store.lastSeq()).toBe(0);
  });
  // Registered after the store's hooks, so it runs before the store is destroyed.
  afterEach(() => {
    expect(store.lastSeq()).toBe(0); // nothing published by a rejected call
  });

  async function options(overrides: Record<string, unknown>): Promise<RunLadderOptions> {
    const ladder = await loadLadderFile(fixture('slates-record.yaml'));
    return { store, ladder, input: 'hello', session: 's1', model: scriptedModel(['x', 'y', 'z']), clock: steppingClock(), ...overrides } as RunLadderOptions;
  }

  it.each<[string, Record<string, unknown>, string]>([
    ['a BigInt in input', { input: { context: 1n } }, 'input'],
    ['a cycle in input', { input: cyclic() }, 'input'],
    ['a lone surrogate input', { input: 'a\udfffb' }, 'input'],
    ['an array input', { input: ['a'] }, 'input'],
    ['a numeric session', { session: 7 }, 'session'],
    ['a symbol ladderId', { ladderId: Symbol('l') }, 'ladderId'],
    ['a symbol encoding', { encoding: Symbol('e') }, 'encoding'],
    ['a non-function clock', { clock: 5 }, 'clock'],
    ['a negative conflictRetries', { conflictRetries: -1 }, 'conflictRetries'],
    ['a model without complete', { model: {} }, 'model'],
    ['a store that is not a store', { store: {} }, 'store'],
  ])('%s is INPUT_INVALID naming the option', async (_, overrides, field) => {
    const err = await rejectionOf(async () => runLadder(await options(overrides)), 'INPUT_INVALID');
    expect(err.details.field).toBe(field);
  });

  it('options whose getter throws are INPUT_INVALID (options, unreadable), not the getter\'s error', async () => {
    const hostile = await options({});
    Object.defineProperty(hostile, 'session', { enumerable: true, get: () => { throw new Error('getter exploded'); } });
    const err = await rejectionOf(async () => runLadder(hostile), 'INPUT_INVALID');
    expect(err.details).toEqual({ field: 'options', reason: 'unreadable' });
  });

  it('a look-alike Ladder object is loaded as a config (CONFIG_INVALID), not trusted', async () => {
    await rejectionOf(async () => runLadder(await options({ ladder: { config: {}, catalog: {}, checks: {} } })), 'CONFIG_INVALID');
    await rejectionOf(async () => runLadder(await options({ ladder: 'name: x\nsteps: [*a]' })), 'CONFIG_INVALID');
  });

  it('a model that throws a plain error or answers a non-string is MODEL_FAILED', async () => {
    const boom = new TypeError('socket closed');
    const err = await rejectionOf(async () => runLadder(await options({ model: { complete: () => Promise.reject(boom) } })), 'MODEL_FAILED');
    expect(err.cause).toBe(boom);
    await rejectionOf(async () => runLadder(await options({ model: { complete: () => Promise.resolve(42) } })), 'MODEL_FAILED');
  });
});
