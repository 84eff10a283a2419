import { applyPatch, diff, isStateflowError } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import { describe, expect, it } from 'vitest';
import { TooDeepError, decodeJsonText, encodeAppended, encodeJson, escapeKey, unescapeKey } from './json-mapping.js';
import { flatEncodeJson } from '../test-support/flat-json-mapping.js';

/** The stored form of `text`'s JSON, checked to read back as the same JSON. */
function stored(text: string): JsonValue {
  const encoded = encodeJson(JSON.parse(text));
  expect(JSON.parse(decodeJsonText(encoded))).toStrictEqual(JSON.parse(text));
  // The store takes it: a patch that writes it is valid and the state holds it unchanged.
  expect(applyPatch({}, { v: encoded })).toStrictEqual({ v: encoded });
  return encoded;
}

/** The `$pages` of the stored form of `n` (> 64) numbers. */
function pagesOf(n: number): Record<string, JsonValue> {
  return (encodeJson(Array.from({ length: n }, (_, i) => i)) as { $pages: Record<string, JsonValue> }).$pages;
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

  it('indexes arrays of up to 64 items and arrays of containers, so appending adds keys', () => {
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

  it('pages longer arrays: pages of 64 items keyed by index, each block as large as the power of 64 at its start', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));
    const indexed = (from: number, to: number) => Object.fromEntries(Array.from({ length: to - from }, (_, k) => [String(from + k), { i: from + k }]));
    expect(stored(JSON.stringify(items(64)))).toStrictEqual({ $len: 64, ...indexed(0, 64) });
    expect(stored(JSON.stringify(items(65)))).toStrictEqual({ $len: 65, $pages: { '0': indexed(0, 64), '64': indexed(64, 65) } });
    const long = stored(JSON.stringify(items(4_100))) as { $pages: Record<string, Record<string, unknown>> };
    const starts = Object.keys(long.$pages);
    expect(starts).toEqual([...Array.from({ length: 64 }, (_, p) => String(p * 64)), '4096']);
    expect(long.$pages['4032']).toStrictEqual(indexed(4032, 4096));
    // Items from 4,096 on: blocks of 64 pages, keyed by their first index.
    expect(long.$pages['4096']).toStrictEqual({ '4096': indexed(4096, 4100) });
    // Scalars past 16 page too, and pages count toward the depth limit (array, $pages, page).
    const numbers = Array.from({ length: 65 }, (_, i) => i);
    expect(() => encodeJson(numbers, 2)).toThrow(TooDeepError);
    expect(encodeJson(numbers, 3)).toMatchObject({ $len: 65, $pages: { '64': { '64': 64 } } });
  });

  it('appending to a paged array writes $len and the new item on its path; an append shares the full pages', () => {
    for (const n of [100, 4_159, 4_160]) {
      const before = Array.from({ length: n }, (_, i) => ({ i }));
      const patch = diff({ v: encodeJson(before) as never }, { v: encodeJson([...before, { i: n }]) as never });
      const page = n - (n % 64);
      const path = n < 4096 ? { [String(page)]: { [String(n)]: { i: n } } } : { '4096': { [String(page)]: { [String(n)]: { i: n } } } };
      expect(patch).toStrictEqual({ v: { $len: n + 1, $pages: path } });
      const mapped = encodeJson(before) as { $pages: Record<string, unknown> };
      const appended = encodeAppended(mapped, [{ i: n }, { i: n + 1 }]) as typeof mapped;
      expect(appended).toStrictEqual(encodeJson([...before, { i: n }, { i: n + 1 }]));
      expect(appended.$pages['0']).toBe(mapped.$pages['0']); // a full page: the same object
    }
    // A flat array that would become paged is mapped whole by the caller, once.
    expect(encodeAppended(encodeJson(Array.from({ length: 64 }, () => ({}))), [{}])).toBeUndefined();
    expect(encodeAppended(encodeJson(Array.from({ length: 63 }, () => ({}))), [{}])).toStrictEqual(encodeJson(Array.from({ length: 64 }, () => ({}))));
  });

  it('reads arrays stored flat at any length, as threads stored before pages hold them', () => {
    const messages = Array.from({ length: 300 }, (_, i) => ({ role: 'ai', content: `m${i}`, extra: i % 7 === 0 ? null : [i] }));
    const flat = flatEncodeJson(messages) as Record<string, unknown>;
    expect(Object.keys(flat)).toHaveLength(301);
    expect(JSON.parse(decodeJsonText(flat as JsonValue))).toStrictEqual(messages);
    // Appending to one maps the whole array again (into pages).
    expect(encodeAppended(flat as JsonValue, [{ role: 'ai' }])).toBeUndefined();
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
    ['pages for 64 items or fewer', { $len: 2, $pages: { '0': { '0': 1, '1': 2 } } }],
    ['items beside $pages', { $len: 65, '0': 1, $pages: pagesOf(65) }],
    ['$pages that is not an object', { $len: 65, $pages: [1] }],
    ['a page missing', { $len: 65, $pages: { '0': pagesOf(65)['0'] } }],
    ['a page that is not an object', { $len: 65, $pages: { ...pagesOf(65), '64': 7 } }],
    ['a page short of an item', { $len: 66, $pages: pagesOf(65) }],
    ['an item outside its page', { $len: 65, $pages: { ...pagesOf(65), '64': { '64': 1, '65': 2 } } }],
    ['a block key no length has', { $len: 65, $pages: { ...pagesOf(65), '128': { '128': 1 } } }],
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
