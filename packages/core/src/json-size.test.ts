import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from './json.js';
import { jsonByteLength } from './json-size.js';
import { fcParams } from '@stateflow/test-kit';

describe('jsonByteLength', () => {
  it('equals the UTF-8 length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const json = value as JsonValue;
        return jsonByteLength(json) === Buffer.byteLength(JSON.stringify(json), 'utf8');
      }),
      fcParams(),
    );
  });

  it('counts escapes and multi-byte characters', () => {
    for (const value of ['a"b\\c\n', 'é€😀', { 'k"é': ['\u0001', 2.5, true, false, null] }, [], {}, [[], {}]] as JsonValue[]) {
      expect(jsonByteLength(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
    }
  });

  it('stops past the limit without serialising what is left', () => {
    const big = 'x'.repeat(1_000_000);
    expect(jsonByteLength([big, big, big], 1000)).toBeGreaterThan(1000);
    expect(jsonByteLength({ a: 'abc' }, 11)).toBe(11);
    expect(jsonByteLength({ a: 'abc' }, 10)).toBeGreaterThan(10);
  });
});
