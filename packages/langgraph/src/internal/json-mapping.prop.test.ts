import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { applyPatch, diff, jsonEqual } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { describe, expect, it } from 'vitest';
import { decodeJsonText, encodeJson } from './json-mapping.js';
import { fcParams } from '@stateflow/test-kit';

// A run is a pure mapping over a small value: twice the ordinary runs.
const params: fc.Parameters<unknown> = fcParams({ share: 2 });

// Keys the mapping must escape or keep as data, plus any string (lone surrogates included).
const keyArb = fc.oneof(
  fc.constantFrom('[0]', '[1]', '$len', '$null', '$str', '$', '$$x', '$[', '__proto__', 'constructor', '', '0', '1', 'a'),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const scalarArb = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  // JSON text never holds -0 from LangGraph's serializer (JSON.stringify(-0) is "0"); the store
  // keeps numbers as JSON numbers, where -0 and 0 are one value.
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** Any value JSON.parse can return. */
const { value: jsonArb } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 5 }, scalarArb, tie('array'), tie('object')),
  array: fc.oneof(fc.array(tie('value'), { maxLength: 4 }), fc.array(scalarArb, { minLength: 15, maxLength: 20 })),
  object: fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 5 }).map(objectOf),
}));

describe('json mapping properties', () => {
  it('reads back every JSON value exactly (through JSON text, as the serializer reads it)', () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        const text = decodeJsonText(encodeJson(value));
        expect(isDeepStrictEqual(JSON.parse(text), value)).toBe(true);
      }),
      params,
    );
  });

  it('writes only what a Stateflow state may hold (a patch writing it applies and reads back unchanged)', () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        const encoded = encodeJson(value);
        expect(jsonEqual(applyPatch({}, { v: encoded })['v'] as JsonValue, encoded)).toBe(true);
      }),
      params,
    );
  });

  it('appending to an array of containers costs the new item: the net patch is $len and one key', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string({ maxLength: 3 }), fc.string()), { maxLength: 30 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.string()), (items, item) => {
        const before = { list: encodeJson([...items, {}]) } as JsonObject;
        const after = { list: encodeJson([...items, {}, item]) } as JsonObject;
        expect(diff(before, after)).toStrictEqual({ list: { $len: items.length + 2, [String(items.length + 1)]: encodeJson(item) } });
      }),
      params,
    );
  });
});
