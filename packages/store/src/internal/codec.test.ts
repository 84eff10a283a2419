/**
 * The checkpoint state encoding (README "Storage layout", format 3): ASCII JSON text that parses
 * back to the same value, key order included, deeply frozen.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@stateflow/core';
import { fcParams } from '@stateflow/test-kit';
import { asciiJson, parseAsciiJson } from './codec.js';

const isDeepFrozen = (value: unknown): boolean =>
  value === null || typeof value !== 'object' || (Object.isFrozen(value) && Object.values(value).every(isDeepFrozen));

describe('asciiJson / parseAsciiJson', () => {
  it('round-trips any JSON value with its key order, as bytes below 0x7f, deeply frozen', () => {
    const text = fc.string({ unit: 'grapheme' });
    const value = fc.jsonValue({ maxDepth: 4 }).chain((v) => fc.dictionary(text, fc.constant(v), { maxKeys: 3 }).map((d) => ({ v, d })));
    fc.assert(
      fc.property(value, ({ v, d }) => {
        for (const input of [v, d] as JsonValue[]) {
          const bytes = asciiJson(input);
          expect(bytes.every((b) => b < 0x7f)).toBe(true);
          const back = parseAsciiJson(bytes);
          expect(JSON.stringify(back)).toBe(JSON.stringify(input));
          expect(isDeepFrozen(back)).toBe(true);
        }
      }),
      fcParams(),
    );
  });

  it('keeps astral characters, DEL, U+2028 and an own __proto__ key as data', () => {
    const input = JSON.parse('{"__proto__": {"x": 1}, "emoji": "a😀b", "del": "\\u007f", "ls": "\\u2028", "é": ["ü"]}') as JsonValue;
    const bytes = asciiJson(input);
    expect(bytes.toString('latin1')).toBe('{"__proto__":{"x":1},"emoji":"a\\ud83d\\ude00b","del":"\\u007f","ls":"\\u2028","\\u00e9":["\\u00fc"]}');
    const back = parseAsciiJson(bytes) as Record<string, JsonValue>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.keys(back)).toEqual(['__proto__', 'emoji', 'del', 'ls', 'é']);
    expect(back.emoji).toBe('a😀b');
    expect(() => parseAsciiJson(Buffer.from('{"a":'))).toThrow(SyntaxError);
  });
});
