import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { LAZY_HINT_MAX_CHARS, LAZY_HINT_MAX_KEYS, lazyNavigation } from './lazy-navigation.js';

/** A lazy root with `count` array-valued keys whose key map's canonical JSON is `chars` long. */
function lazyRoot(count: number, chars: number): JsonObject {
  // Each entry `"k":"array"` costs key length + 10; commas and braces cost count + 1.
  let budget = chars - (count * 10 + count + 1);
  const root: JsonObject = {};
  for (let i = 0; i < count; i++) {
    const base = `k${String(i).padStart(2, '0')}`;
    const length = Math.floor(budget / (count - i));
    root[base.padEnd(length, 'x')] = ['body'];
    budget -= length;
  }
  expect(Object.keys(root)).toHaveLength(count);
  expect(canonicalize(Object.fromEntries(Object.keys(root).map((k) => [k, 'array'])))).toHaveLength(chars);
  return root;
}

describe('lazyNavigation: the bounded baseline hint', () => {
  it('lists the complete key → kind map of a small object root', () => {
    expect(lazyNavigation({ memory: ['a'], rules: { r: 'x' }, soul: ['s'] })).toEqual({
      available: true,
      path: 'effective.lazy',
      keys: { memory: 'array', rules: 'object', soul: 'array' },
    });
  });

  it('advertises the given root path', () => {
    expect(lazyNavigation({ plan: 'p' }, 'cwd.lazy')).toEqual({ available: true, path: 'cwd.lazy', keys: { plan: 'string' } });
  });

  it('is unavailable without keys when lazy is absent', () => {
    const hint = lazyNavigation(undefined);
    expect(hint).toEqual({ available: false, path: 'effective.lazy' });
    expect('keys' in hint).toBe(false);
    expect(lazyNavigation(null)).toEqual({ available: false, path: 'effective.lazy' });
  });

  it('reports an empty root as available with an empty key map', () => {
    expect(lazyNavigation({})).toEqual({ available: true, path: 'effective.lazy', keys: {} });
  });

  it(`includes keys at exactly ${LAZY_HINT_MAX_KEYS} keys and omits the property at 33`, () => {
    expect(LAZY_HINT_MAX_KEYS).toBe(32);
    const at32: JsonObject = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(lazyNavigation(at32).keys ?? {})).toHaveLength(32);
    const at33: JsonObject = { ...at32, k32: 32 };
    const hint = lazyNavigation(at33);
    expect(hint).toEqual({ available: true, path: 'effective.lazy' });
    expect(Object.keys(hint)).toEqual(['available', 'path']);
  });

  it(`includes keys at exactly ${LAZY_HINT_MAX_CHARS} canonical characters and omits them at 1,025`, () => {
    expect(LAZY_HINT_MAX_CHARS).toBe(1024);
    for (const count of [1, 5, 32]) {
      const fits = lazyNavigation(lazyRoot(count, 1024));
      expect(Object.keys(fits.keys ?? {}), `count ${count}`).toHaveLength(count);
      const over = lazyNavigation(lazyRoot(count, 1025));
      expect(Object.keys(over), `count ${count}`).toEqual(['available', 'path']);
      expect(over.available).toBe(true);
    }
  });

  it('never carries lazy bodies', () => {
    const hint = lazyNavigation({ secret: 'body text', list: ['body'] });
    expect(JSON.stringify(hint)).not.toContain('body');
  });

  it('is available without keys for a non-object root', () => {
    expect(lazyNavigation(['x'])).toEqual({ available: true, path: 'effective.lazy' });
  });
});
