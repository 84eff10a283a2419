/**
 * The store's canonical JSON (`internal/hash.ts`, what every transition hash is computed over)
 * against the `canonicalize` library it replaced, as the oracle: the same text for random JSON
 * values (full Unicode strings and keys, `__proto__`, numbers of every magnitude, nesting), and
 * the same refusals (lone surrogates in strings or keys).
 */
import fc from 'fast-check';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '@stateflow/core';
import { fcParams } from '@stateflow/test-kit';
import { canonicalJson } from './internal/hash.js';

const keyArb = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('__proto__', 'a', 'B', 'é', '\u{1F600}', '10', '9', ''));
const jsonArb: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keyArb, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('canonical JSON', () => {
  it('is the text canonicalize gives for every JSON value', () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      fcParams({ share: 5 }),
    );
  });

  it('refuses lone surrogates in strings and keys as canonicalize does', () => {
    for (const value of ['\uD800', 'a\uDC00b', { '\uDBFFx': 1 }, ['ok', '\uDFFF']] as JsonValue[]) {
      expect(() => canonicalize(value)).toThrow();
      expect(() => canonicalJson(value)).toThrow(TypeError);
    }
    expect(canonicalJson({ b: [1, -0, 1e21, 5e-7], a: '\u{1F600}\u2028' })).toBe(canonicalize({ b: [1, -0, 1e21, 5e-7], a: '\u{1F600}\u2028' }));
  });
});
