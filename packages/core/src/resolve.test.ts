import { describe, expect, it } from 'vitest';
import type { JsonValue } from './json.js';
import { parsePath } from './path-grammar.js';
import { readPlaneAware, resolvePath } from './resolve.js';
import { PATH_ECHO_LIMIT, elidePath } from './path-echo.js';
import { errorOf } from '@stateflow/test-kit';

/** Resolves a full path text against a scope root, as a reader does after selecting the root. */
function read(root: JsonValue, text: string): JsonValue {
  return resolvePath(root, parsePath(text).steps, text);
}

const thoughts = ['first thought', 'second thought', 'third thought', 't3', 't4', 't5', 't6', 't7', 't8', 't9'];
const cwd = {
  lazy: {
    memory: thoughts,
    plan: 'ship it',
    groups: [{ notes: ['a', 'b'] }],
  },
  tactics: { nextAction: 'Implement progressive reads.' },
};

describe('resolvePath: the value projection selection', () => {
  it('selects the seed range example cwd.lazy.memory[0..3]', () => {
    expect(read(cwd, 'cwd.lazy.memory[0..3]')).toEqual(['first thought', 'second thought', 'third thought']);
  });

  it('selects scalars, objects, arrays and items exactly', () => {
    expect(read(cwd, 'cwd.tactics.nextAction')).toBe('Implement progressive reads.');
    expect(read(cwd, 'cwd.lazy.memory[4]')).toBe('t4');
    expect(read(cwd, 'cwd.lazy.groups[0].notes[1]')).toBe('b');
    expect(read(cwd, 'cwd.lazy')).toBe(cwd.lazy);
    expect(read(cwd, 'cwd')).toBe(cwd);
  });

  it('treats an unscoped path the same way from the root it is given', () => {
    expect(read(cwd, 'lazy.plan')).toBe('ship it');
  });

  it('accepts ranges that fit: [0:10] and [10:10] on length 10', () => {
    expect(read(cwd, 'cwd.lazy.memory[0:10]')).toEqual(thoughts);
    expect(read(cwd, 'cwd.lazy.memory[10:10]')).toEqual([]);
    expect(read(cwd, 'cwd.lazy.memory[0..10]')).toEqual(thoughts);
    expect(read(cwd, 'cwd.lazy.memory[10..10]')).toEqual([]);
    expect(read(cwd, 'cwd.lazy.memory[3:5]')).toEqual(['t3', 't4']);
  });

  it('rejects ranges that do not fit: [0:15] and [11:11] on length 10, with either spelling', () => {
    for (const [text, index] of [
      ['cwd.lazy.memory[0:15]', '0:15'],
      ['cwd.lazy.memory[11:11]', '11:11'],
      ['cwd.lazy.memory[0..15]', '0:15'],
      ['cwd.lazy.memory[11..11]', '11:11'],
    ] as const) {
      const err = errorOf(() => read(cwd, text));
      expect(err.code).toBe('INDEX_OUT_OF_RANGE');
      expect(err.details).toEqual({ path: text, index, length: 10, at: text });
    }
    expect(errorOf(() => read(cwd, 'cwd.lazy.memory[0:15]')).message).toBe(
      'Path "cwd.lazy.memory[0:15]": range [0:15] does not fit; "cwd.lazy.memory" has length 10, so a range [start:end] needs end <= 10.',
    );
  });

  it('rejects an index past the end with path, index and length', () => {
    const err = errorOf(() => read(cwd, 'cwd.lazy.memory[10]'));
    expect(err.code).toBe('INDEX_OUT_OF_RANGE');
    expect(err.details).toEqual({ path: 'cwd.lazy.memory[10]', index: 10, length: 10, at: 'cwd.lazy.memory[10]' });
    expect(err.message).toBe(
      'Path "cwd.lazy.memory[10]": index 10 is out of range; "cwd.lazy.memory" has length 10 (indices 0..9).',
    );
    const empty = errorOf(() => read({ a: [] }, 'a[0]'));
    expect(empty.details).toEqual({ path: 'a[0]', index: 0, length: 0, at: 'a[0]' });
  });

  it('reports a missing member with PATH_NOT_FOUND and where resolution stopped', () => {
    const err = errorOf(() => read(cwd, 'cwd.lazy.missing.deeper'));
    expect(err.code).toBe('PATH_NOT_FOUND');
    expect(err.details).toEqual({ path: 'cwd.lazy.missing.deeper', at: 'cwd.lazy.missing' });
    expect(err.message).toBe('Path "cwd.lazy.missing.deeper" not found: "cwd.lazy" has no member "missing".');
    expect(errorOf(() => read(cwd, 'nope')).message).toBe('Path "nope" not found: the state has no member "nope".');
  });

  it('reports a member of an array or scalar, and an index of an object or scalar, as PATH_KIND', () => {
    const cases: [string, string, string, string][] = [
      ['cwd.lazy.memory.first', 'object', 'array', 'cwd.lazy.memory.first'],
      ['cwd.lazy.plan.x', 'object', 'string', 'cwd.lazy.plan.x'],
      ['cwd.lazy[0]', 'array', 'object', 'cwd.lazy[0]'],
      ['cwd.lazy[0:1]', 'array', 'object', 'cwd.lazy[0:1]'],
      ['cwd.lazy.plan[0]', 'array', 'string', 'cwd.lazy.plan[0]'],
      ['cwd[3][0]', 'array', 'object', 'cwd[3][0]'],
      ['cwd.lazy.memory[0].x', 'object', 'string', 'cwd.lazy.memory[0].x'],
    ];
    for (const [text, expected, actual, at] of cases) {
      const err = errorOf(() => read(cwd, text));
      expect(err.code, text).toBe('PATH_KIND');
      expect(err.details).toEqual({ path: text, expected, actual, at });
    }
    expect(errorOf(() => read(cwd, 'cwd.lazy[0]')).message).toBe(
      'Path "cwd.lazy[0]": "cwd.lazy" is an object, not an array, so index [0] selects nothing.',
    );
  });

  it('never reads inherited members: toString, constructor, absent __proto__, an array length', () => {
    for (const text of ['cwd.toString', 'cwd.constructor', 'cwd.__proto__', 'cwd.hasOwnProperty']) {
      expect(errorOf(() => read(cwd, text)).code, text).toBe('PATH_NOT_FOUND');
    }
    // `length` of an array is a member of an array: a kind error, never the length.
    expect(errorOf(() => read(cwd, 'cwd.lazy.memory.length')).code).toBe('PATH_KIND');
  });

  it('reads stored __proto__, constructor and prototype keys as ordinary data', () => {
    const stored = JSON.parse('{"lazy":{"__proto__":{"polluted":true},"constructor":1,"prototype":[7]}}') as JsonValue;
    expect(read(stored, 'cwd.lazy.__proto__')).toEqual({ polluted: true });
    expect(read(stored, 'cwd.lazy.__proto__.polluted')).toBe(true);
    expect(read(stored, 'cwd.lazy.constructor')).toBe(1);
    expect(read(stored, 'cwd.lazy.prototype[0]')).toBe(7);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('never mutates its input; a range is a new array', () => {
    const before = JSON.stringify(cwd);
    const range = read(cwd, 'cwd.lazy.memory[0:10]');
    expect(range).not.toBe(thoughts);
    expect(JSON.stringify(cwd)).toBe(before);
  });
});

describe('readPlaneAware: absent documented planes read as null', () => {
  const scope = { intents: { release: { $ref: 'cwd.lazy.plan' } }, response: '', custom: 1 };

  it.each(['strategy', 'tactics', 'artifacts', 'lazy', 'response'])('an absent or empty %s at the top reads null', (plane) => {
    const text = `cwd.${plane}`;
    expect(readPlaneAware(scope, parsePath(text).steps, text)).toBeNull();
    expect(readPlaneAware({}, parsePath(plane).steps, plane)).toBeNull();
  });

  it('treats an empty object or array response as absent, and a non-empty one as present', () => {
    for (const response of [{}, []] as JsonValue[]) {
      expect(readPlaneAware({ response }, parsePath('session.response').steps, 'session.response')).toBeNull();
    }
    expect(readPlaneAware({ response: 'Done.' }, parsePath('session.response').steps, 'session.response')).toBe('Done.');
  });

  it('reads present planes and other keys exactly', () => {
    expect(readPlaneAware(scope, parsePath('cwd.intents.release').steps, 'cwd.intents.release')).toEqual({
      $ref: 'cwd.lazy.plan',
    });
    expect(readPlaneAware(scope, parsePath('cwd.custom').steps, 'cwd.custom')).toBe(1);
    expect(readPlaneAware({ lazy: {} }, parsePath('cwd.lazy').steps, 'cwd.lazy')).toEqual({});
  });

  it('fails below an absent plane with PATH_NOT_FOUND at the plane', () => {
    const err = errorOf(() => readPlaneAware(scope, parsePath('cwd.lazy.plan').steps, 'cwd.lazy.plan'));
    expect(err.code).toBe('PATH_NOT_FOUND');
    expect(err.details).toEqual({ path: 'cwd.lazy.plan', at: 'cwd.lazy' });
    expect(err.message).toBe('Path "cwd.lazy.plan" not found: plane "lazy" is absent from "cwd".');
    expect(errorOf(() => readPlaneAware({}, parsePath('lazy[0]').steps, 'lazy[0]')).code).toBe('PATH_NOT_FOUND');
  });

  it('keeps undocumented absent top-level keys as PATH_NOT_FOUND', () => {
    const err = errorOf(() => readPlaneAware(scope, parsePath('cwd.notes').steps, 'cwd.notes'));
    expect(err.code).toBe('PATH_NOT_FOUND');
    expect(err.details).toEqual({ path: 'cwd.notes', at: 'cwd.notes' });
  });

  it('applies only at the top: a nested absent key named like a plane is not found', () => {
    const err = errorOf(() => readPlaneAware({ lazy: {} }, parsePath('cwd.lazy.tactics').steps, 'cwd.lazy.tactics'));
    expect(err.code).toBe('PATH_NOT_FOUND');
  });
});

describe('resolution errors echo at most 200 characters of the path', () => {
  it('PATH_NOT_FOUND, PATH_KIND and INDEX_OUT_OF_RANGE on a 4000-character path', () => {
    const key = 'k'.repeat(3990);
    const root = { lazy: { [key]: [1], scalar: 1 } };
    const cases: [string, string][] = [
      [`lazy.missing${key}`, 'PATH_NOT_FOUND'],
      [`lazy.scalar.${key}`, 'PATH_KIND'],
      [`lazy.${key}[5]`, 'INDEX_OUT_OF_RANGE'],
      [`lazy.${key}.x`, 'PATH_KIND'],
    ];
    for (const [text, code] of cases) {
      const err = errorOf(() => read(root, text));
      expect(err.code).toBe(code);
      expect(err.message.length).toBeLessThan(3 * PATH_ECHO_LIMIT + 200);
      expect(err.details.path).toBe(elidePath(text));
      expect((err.details.at as string).length).toBeLessThanOrEqual(PATH_ECHO_LIMIT);
    }
  });
});
