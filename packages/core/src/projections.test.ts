import { describe, expect, it } from 'vitest';
import { StateflowError } from './errors.js';
import type { JsonValue } from './json.js';
import { parsePath } from './path-grammar.js';
import { isProjection, projectKeys, readBatch } from './projections.js';
import type { ProjectionResults } from './projections.js';
import { readPlaneAware } from './resolve.js';

const memory = Array.from({ length: 10_000 }, (_, i) => `thought ${i}`);
const cwdMemory = ['first thought', 'second thought', 'third thought', ...memory.slice(3, 12)];
/** Scope roots as a reader has captured them (one state view for the whole batch). */
const view: Record<string, JsonValue> = {
  effective: {
    lazy: { memory, rules: { ranges: 'Ranges are half-open.' }, soul: ['curious'] },
    tactics: { nextAction: 'Implement progressive reads.' },
  },
  cwd: {
    lazy: {
      memory: cwdMemory,
      publication: { ranges: 'Ranges are half-open.', publication: { barrier: 'one' } },
      essay: 'x'.repeat(18_420),
      count: 42,
    },
  },
  session: { tactics: { nextAction: 'Implement progressive reads.' } },
};

function readValue(text: string): JsonValue {
  const parsed = parsePath(text);
  return readPlaneAware(view[parsed.root ?? 'effective'] as JsonValue, parsed.steps, text);
}
const one = {
  value: (text: string): ProjectionResults['value'] => ({ value: readValue(text) }),
  keys: (text: string): ProjectionResults['keys'] => projectKeys(readValue(text)),
};

describe('projectKeys: the seed keys examples', () => {
  it('effective.lazy → object with size 3 and the complete immediate key map', () => {
    const result = one.keys('effective.lazy');
    expect(result).toEqual({
      meta: { type: 'object', size: 3 },
      keys: { memory: 'array', rules: 'object', soul: 'array' },
    });
    expect(Object.keys(result)).toEqual(['meta', 'keys']);
  });

  it('an explicitly scoped object uses the same structural-only shape', () => {
    expect(projectKeys({ ranges: 'Ranges are half-open.', publication: { barrier: 'one' } })).toEqual({
      meta: { type: 'object', size: 2 },
      keys: { ranges: 'string', publication: 'object' },
    });
  });

  it('arrays, strings and numbers have keys [] and only their navigation fact in meta', () => {
    expect(one.keys('effective.lazy.memory')).toEqual({ meta: { type: 'array', length: 10000 }, keys: [] });
    expect(one.keys('cwd.lazy.essay')).toEqual({ meta: { type: 'string', length: 18420 }, keys: [] });
    expect(one.keys('cwd.lazy.count')).toEqual({ meta: { type: 'number' }, keys: [] });
    expect(projectKeys(true)).toEqual({ meta: { type: 'boolean' }, keys: [] });
    expect(projectKeys(null)).toEqual({ meta: { type: 'null' }, keys: [] });
  });

  it('keeps meta closed: exactly type plus size (objects) or length (arrays, strings)', () => {
    const samples: JsonValue[] = [{}, { a: 1 }, [], [1], '', 'abc', 0, false, null];
    for (const sample of samples) {
      const { meta } = projectKeys(sample);
      const allowed = Array.isArray(sample) || typeof sample === 'string' ? ['type', 'length'] : sample !== null && typeof sample === 'object' ? ['type', 'size'] : ['type'];
      expect(Object.keys(meta)).toEqual(allowed);
    }
  });

  it('lists every own key with its kind, never descendant values, in key order', () => {
    const result = projectKeys({ z: [1], a: { deep: { deeper: 1 } }, m: 'text', n: 1.5, b: false });
    expect(Object.entries(result.keys)).toEqual([
      ['z', 'array'],
      ['a', 'object'],
      ['m', 'string'],
      ['n', 'number'],
      ['b', 'boolean'],
    ]);
  });

  it('reports a stored __proto__ key as data without touching any prototype', () => {
    const stored = JSON.parse('{"__proto__":{"x":1},"constructor":"c"}') as JsonValue;
    const result = projectKeys(stored);
    expect(result.meta).toEqual({ type: 'object', size: 2 });
    expect(Object.keys(result.keys)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(result.keys)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result.keys, '__proto__')?.value).toBe('object');
  });
});

describe('readBatch: multi-path reads', () => {
  it('value: positional results in request order (the seed multi-path example)', () => {
    const result = readBatch(
      ['effective.lazy.rules', 'cwd.lazy.memory[0..2]', 'session.tactics.nextAction'],
      'value',
      one.value,
    );
    expect(result).toEqual({
      value: [{ ranges: 'Ranges are half-open.' }, ['first thought', 'second thought'], 'Implement progressive reads.'],
    });
  });

  it('value: the seed request example paths read in order with the fallback range spelling', () => {
    const result = readBatch(['effective.lazy.rules', 'cwd.lazy.memory[0..10]', 'session.tactics.nextAction'], 'value', one.value);
    expect(result.value).toEqual([{ ranges: 'Ranges are half-open.' }, cwdMemory.slice(0, 10), 'Implement progressive reads.']);
    expect(one.value('cwd.lazy.memory[0..3]')).toEqual({ value: ['first thought', 'second thought', 'third thought'] });
  });

  it('keys: both arrays positional, keys last (the seed multi-path keys example)', () => {
    const result = readBatch(['effective.lazy.memory', 'effective.lazy.rules'], 'keys', (text) =>
      text === 'effective.lazy.rules'
        ? projectKeys({ ranges: 'Ranges are half-open.', publication: {} })
        : one.keys(text),
    );
    expect(result).toEqual({
      meta: [
        { type: 'array', length: 10000 },
        { type: 'object', size: 2 },
      ],
      keys: [[], { ranges: 'string', publication: 'object' }],
    });
    expect(Object.keys(result)).toEqual(['meta', 'keys']);
  });

  it('patch: positional patches, no-change {} and deletion null kept distinct', () => {
    const patches: Record<string, JsonValue> = { a: { '[1]': 'corrected thought' }, b: {}, c: null, d: ['new'] };
    expect(readBatch(['a', 'b', 'c', 'd'], 'patch', (p) => ({ patch: patches[p] as JsonValue }))).toEqual({
      patch: [{ '[1]': 'corrected thought' }, {}, null, ['new']],
    });
  });

  it('keeps duplicate paths as duplicate results', () => {
    expect(readBatch(['session.tactics.nextAction', 'session.tactics.nextAction'], 'value', one.value)).toEqual({
      value: ['Implement progressive reads.', 'Implement progressive reads.'],
    });
  });

  it('fails the whole batch on one failing path: no partial result', () => {
    const seen: string[] = [];
    const failing = (text: string): ProjectionResults['value'] => {
      seen.push(text);
      return one.value(text);
    };
    let result: unknown = 'untouched';
    let error: unknown;
    try {
      result = readBatch(['effective.lazy.rules', 'effective.lazy.memory[0:10001]', 'session.tactics.nextAction'], 'value', failing);
    } catch (err) {
      error = err;
    }
    expect(result).toBe('untouched');
    expect((error as StateflowError).code).toBe('INDEX_OUT_OF_RANGE');
    expect((error as StateflowError).details).toMatchObject({ path: 'effective.lazy.memory[0:10001]', length: 10000 });
    expect(seen).toEqual(['effective.lazy.rules', 'effective.lazy.memory[0:10001]']);
    expect(() => readBatch(['effective.lazy', 'cwd.lazy.[0]'], 'keys', one.keys)).toThrow(
      expect.objectContaining({ code: 'PATH_SYNTAX' }),
    );
  });

  it('rejects an empty path list with INPUT_INVALID', () => {
    expect(() => readBatch([], 'value', one.value)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', details: { field: 'paths', reason: 'empty' } }),
    );
  });
});

describe('isProjection', () => {
  it('accepts exactly value, keys and patch', () => {
    expect(['value', 'keys', 'patch'].every(isProjection)).toBe(true);
    expect(['values', 'meta', '', 1, null].some(isProjection)).toBe(false);
  });
});
