import { applyPatch, diff, isStateflowError } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import { describe, expect, it } from 'vitest';
import { TooDeepError, decodeJsonText, encodeJson, escapeKey, unescapeKey } from './json-mapping.js';

/** The stored form of `text`'s JSON, checked to read back as the same JSON. */
function stored(text: string): JsonValue {
  const encoded = encodeJson(JSON.parse(text));
  expect(JSON.parse(decodeJsonText(encoded))).toStrictEqual(JSON.parse(text));
  // The store takes it: a patch that writes it is valid and the state holds it unchanged.
  expect(applyPatch({}, { v: encoded })).toStrictEqual({ v: encoded });
  return encoded;
}

describe('json mapping (README "Value mapping")', () => {
  it('keeps plain JSON as it is', () => {
    expect(stored('{"a":1,"b":"x","c":true,"d":{"e":[1,"two",false]},"f":{}}')).toStrictEqual({ a: 1, b: 'x', c: true, d: { e: [1, 'two', false] }, f: {} });
  });

  it('tags null wherever it is, also inside arrays', () => {
    expect(stored('null')).toStrictEqual({ $null: true });
    expect(stored('{"a":null}')).toStrictEqual({ a: { $null: true } });
    expect(stored('[1,null]')).toStrictEqual({ $len: 2, '0': 1, '1': { $null: true } });
  });

  it('indexes long arrays and arrays of containers, so appending adds keys', () => {
    const long = Array.from({ length: 17 }, (_, i) => i);
    expect(stored(JSON.stringify(long.slice(0, 16)))).toStrictEqual(long.slice(0, 16));
    expect(stored(JSON.stringify(long))).toMatchObject({ $len: 17, '0': 0, '16': 16 });
    expect(stored('[{"a":1}]')).toStrictEqual({ $len: 1, '0': { a: 1 } });
    expect(stored('[[1]]')).toStrictEqual({ $len: 1, '0': [1] });
    expect(stored('[]')).toStrictEqual([]);
    const messages = [{ role: 'user', content: 'hi' }];
    const grown = [...messages, { role: 'ai', content: 'hello' }];
    expect(diff(encodeJson(messages) as never, encodeJson(grown) as never)).toStrictEqual({ $len: 2, '1': { role: 'ai', content: 'hello' } });
  });

  it('escapes keys that start with $ or [, so none reads as a tag or an index selector', () => {
    expect(stored('{"[1]":1,"$len":2,"$$":3,"$null":4,"[x":5,"x[1]":6}')).toStrictEqual({ '$[1]': 1, $$len: 2, $$$: 3, $$null: 4, '$[x': 5, 'x[1]': 6 });
    expect(stored('{"$str":"a"}')).toStrictEqual({ $$str: 'a' });
  });

  it('keeps __proto__, constructor and the empty key as data', () => {
    const encoded = stored('{"__proto__":{"polluted":1},"constructor":2,"":3}');
    expect(Object.keys(encoded as object)).toEqual(['__proto__', 'constructor', '']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(decodeJsonText(encoded)).toBe('{"__proto__":{"polluted":1},"constructor":2,"":3}');
  });

  it('writes strings and keys with lone surrogates as their escaped JSON text', () => {
    expect(stored('"\\ud800x"')).toStrictEqual({ $str: '"\\ud800x"' });
    expect(stored('{"\\udc00":1}')).toStrictEqual({ '$"\\udc00"': 1 });
    expect(stored('"😀"')).toBe('😀');
  });

  it('refuses values deeper than maxDepth with TooDeepError, before the store would', () => {
    const deep = JSON.parse('['.repeat(10) + ']'.repeat(10));
    expect(() => encodeJson(deep, 9)).toThrow(TooDeepError);
    expect(encodeJson(deep, 10)).toBeDefined();
  });

  it('escapeKey and unescapeKey are inverse; an unknown $-key is corrupt', () => {
    for (const key of ['a', '$a', '[0]', '$[0]', '\ud800', '"', '$"x"', '']) expect(unescapeKey(escapeKey(key))).toBe(key);
    expect(() => unescapeKey('$len')).toThrow(expect.objectContaining({ code: 'STORE_CORRUPT' }));
  });

  it.each([
    ['a stored null', null],
    ['$null with another key', { $null: true, a: 1 }],
    ['$str without a string', { $str: 1 }],
    ['$len that is not a length', { $len: -1 }],
    ['$len larger than the items', { $len: 2, '0': 1 }],
    ['an item outside $len', { $len: 1, '0': 1, '5': 2 }],
    ['an unknown tag', { $ref: 'x' }],
  ])('decoding %s fails closed with STORE_CORRUPT', (_, value) => {
    let error: unknown;
    try {
      decodeJsonText(value as JsonValue);
    } catch (err) {
      error = err;
    }
    expect(isStateflowError(error, 'STORE_CORRUPT')).toBe(true);
  });
});
