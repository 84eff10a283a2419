/**
 * Value encoding of every stored record (DESIGN.md "Store model": encoding).
 *
 * msgpackr with `useRecords: false`, so decoding never depends on structures held by the
 * process. Maps are decoded as `Map` (`mapsAsObjects: false`) because msgpackr's object
 * decoder renames a `__proto__` key; we rebuild plain objects ourselves, defining every key as
 * an own data property (so `__proto__` stays data) and freezing as we go — decoded values are
 * handed out as immutable state.
 */
import { Packr } from 'msgpackr';
import type { JsonValue } from '@stateflow/core';

// `variableMapSize`: msgpackr's default writes every map with a 16-bit size, and fails on an
// object of more than 65,535 keys; variable sizes encode any object (and small ones in fewer
// bytes). Decoding reads every size form, so records written with 16-bit sizes decode the same.
const packr = new Packr({ useRecords: false, mapsAsObjects: false, moreTypes: false, int64AsType: 'number', variableMapSize: true });

/** Encode a JSON-shaped record as MessagePack bytes. */
export function encodeValue(value: unknown): Uint8Array {
  return packr.pack(value);
}

/**
 * Decode MessagePack bytes into deeply frozen plain JSON values.
 * @throws Error (any) when the bytes are not a well-formed MessagePack value of JSON kinds;
 *   callers translate it into STORE_CORRUPT naming the key.
 */
export function decodeValue(bytes: Uint8Array): JsonValue {
  const raw: unknown = packr.unpack(bytes);
  return toFrozenJson(raw);
}

function toFrozenJson(raw: unknown): JsonValue {
  if (raw === null || typeof raw === 'string' || typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) throw new TypeError('non-finite number');
    return raw;
  }
  if (Array.isArray(raw)) return Object.freeze(raw.map(toFrozenJson)) as JsonValue[];
  if (raw instanceof Map) {
    const object: Record<string, JsonValue> = {};
    for (const [key, value] of raw) {
      if (typeof key !== 'string') throw new TypeError(`non-string map key (${typeof key})`);
      // Plain assignment is much faster; only `__proto__` would hit the prototype setter.
      if (key === '__proto__') Object.defineProperty(object, key, { value: toFrozenJson(value), enumerable: true, writable: true, configurable: true });
      else object[key] = toFrozenJson(value);
    }
    return Object.freeze(object);
  }
  throw new TypeError(`unexpected decoded type ${Object.prototype.toString.call(raw)}`);
}
