import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { applyPatch, diff, jsonEqual } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { describe, expect, it } from 'vitest';
import { TooDeepError, decodeJsonText, encodeAppended, encodeJson } from './json-mapping.js';
import { flatEncodeJson } from '../test-support/flat-json-mapping.js';
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

/** A small object: the items of long lists (messages). */
const itemArb = fc.array(fc.tuple(keyArb, scalarArb), { maxLength: 3 }).map(objectOf);

/** Any value JSON.parse can return; lists around the inline (16) and flat (64) limits too. */
const { value: jsonArb } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 5 }, scalarArb, tie('array'), tie('object')),
  array: fc.oneof(
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(scalarArb, { minLength: 15, maxLength: 20 }),
    fc.array(fc.oneof(scalarArb, itemArb), { minLength: 60, maxLength: 140 }),
  ),
  object: fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 5 }).map(objectOf),
}));

/** The mapped value under the one key on each level of `patch` until a level holds `key`. */
function leafAt(patch: JsonValue, key: string): JsonValue | undefined {
  let node = patch;
  for (;;) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    const keys = Object.keys(node);
    if (keys.length !== 1) return undefined;
    if (keys[0] === key) return node[key] as JsonValue;
    node = node[keys[0] as string] as JsonValue;
  }
}

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

  it('reads back every JSON value from the flat form threads stored before pages hold', () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        expect(isDeepStrictEqual(JSON.parse(decodeJsonText(flatEncodeJson(value))), value)).toBe(true);
      }),
      params,
    );
  });

  it('an append maps to exactly the whole mapping, or throws as it does (depth), or leaves it to the whole mapping', () => {
    const tooDeep = (f: () => unknown) => {
      try {
        return { value: f() };
      } catch (err) {
        if (err instanceof TooDeepError) return { tooDeep: true };
        throw err;
      }
    };
    fc.assert(
      fc.property(fc.array(jsonArb, { maxLength: 150 }), fc.array(jsonArb, { minLength: 1, maxLength: 70 }), fc.integer({ min: 1, max: 8 }), (items, more, depth) => {
        const before = tooDeep(() => encodeJson(items, depth));
        fc.pre(!('tooDeep' in before));
        const appended = tooDeep(() => encodeAppended(before.value as JsonValue, more, depth));
        if ('value' in appended && appended.value === undefined) return; // not an indexed array, or a flat one becoming paged
        const whole = tooDeep(() => encodeJson([...items, ...more], depth));
        // jsonEqual: vitest's equality reads an own `constructor` key as the object's class.
        if ('value' in whole && 'value' in appended) expect(jsonEqual(appended.value as JsonValue, whole.value as JsonValue)).toBe(true);
        else expect(appended).toStrictEqual(whole);
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

  it('appending to an array of containers costs the new item at any length: the net patch is $len and the item on its path', () => {
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 200 }), itemArb, (items, item) => {
        // The 65th item moves a flat list into pages: that one append costs the first page.
        fc.pre(items.length !== 63);
        const before = { list: encodeJson([...items, {}]) } as JsonObject;
        const after = { list: encodeJson([...items, {}, item]) } as JsonObject;
        const { $len, ...rest } = diff(before, after)['list'] as JsonObject;
        expect($len).toBe(items.length + 2);
        expect(jsonEqual(leafAt(rest, String(items.length + 1)) ?? null, encodeJson(item))).toBe(true);
      }),
      params,
    );
  });
});
