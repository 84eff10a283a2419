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
 * Decode MessagePack bytes into deeply frozen plain JSON values — or, with `frozen: false`,
 * plain values nobody else will see (the audit's own reads: freezing costs about as much as
 * decoding, and an audit hands out nothing it decodes).
 * @throws Error (any) when the bytes are not a well-formed MessagePack value of JSON kinds;
 *   callers translate it into STORE_CORRUPT naming the key.
 */
export function decodeValue(bytes: Uint8Array, options: { frozen?: boolean } = {}): JsonValue {
  return toJson(decodeRaw(bytes), options.frozen !== false);
}

/** A value from {@link decodeRaw} as deeply frozen plain JSON. @throws TypeError for non-JSON kinds */
export function toFrozenJson(raw: unknown): JsonValue {
  return toJson(raw, true);
}

function toJson(raw: unknown, freeze: boolean): JsonValue {
  if (raw === null || typeof raw === 'string' || typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) throw new TypeError('non-finite number');
    return raw;
  }
  if (Array.isArray(raw)) {
    const array = raw.map((item) => toJson(item, freeze));
    return freeze ? (Object.freeze(array) as JsonValue[]) : array;
  }
  if (raw instanceof Map) {
    const object: Record<string, JsonValue> = {};
    for (const [key, value] of raw) {
      if (typeof key !== 'string') throw new TypeError(`non-string map key (${typeof key})`);
      // Plain assignment is much faster; only `__proto__` would hit the prototype setter.
      if (key === '__proto__') Object.defineProperty(object, key, { value: toJson(value, freeze), enumerable: true, writable: true, configurable: true });
      else object[key] = toJson(value, freeze);
    }
    return freeze ? Object.freeze(object) : object;
  }
  throw new TypeError(`unexpected decoded type ${Object.prototype.toString.call(raw)}`);
}

/**
 * The raw fields of a MessagePack map record, values as msgpackr decodes them (binary as
 * `Uint8Array`, maps as `Map`): for records with a binary field (a format-3 checkpoint), whose
 * JSON fields the caller passes through {@link toFrozenJson}.
 * @throws Error when the bytes are not MessagePack or not a map with string keys
 */
export function decodeFields(bytes: Uint8Array): Map<string, unknown> {
  const raw = decodeRaw(bytes);
  if (!(raw instanceof Map)) throw new TypeError('record is not a map');
  for (const key of raw.keys()) if (typeof key !== 'string') throw new TypeError(`non-string map key (${typeof key})`);
  return raw as Map<string, unknown>;
}

/**
 * MessagePack bytes as msgpackr decodes them, nothing checked or converted (maps as `Map`,
 * binary as `Uint8Array`).
 * @throws Error when the bytes are not MessagePack
 */
export function decodeRaw(bytes: Uint8Array): unknown {
  return packr.unpack(bytes);
}

/** Characters JSON text may hold that are not printable ASCII (DEL and above; control characters are always escaped). */
const NON_ASCII = /[\u007f-\uffff]/g;

/**
 * A JSON value as ASCII JSON text (a checkpoint's state, format 3): `JSON.stringify` with every
 * character from U+007F up escaped as `\uXXXX` (astral characters as their two surrogates), so
 * the text decodes as Latin-1 — a copy — and parses as a one-byte string, V8's fast case. Text
 * with non-ASCII characters decoded as UTF-8 reads about twice as slowly.
 */
export function asciiJson(value: JsonValue): Buffer {
  const text = JSON.stringify(value).replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return Buffer.from(text, 'latin1');
}

/**
 * Parse ASCII JSON text ({@link asciiJson}) into deeply frozen plain values. V8's `JSON.parse`
 * builds objects about twice as fast as msgpackr decodes maps into `Map`s that are then rebuilt,
 * and it defines every key (`__proto__` included) as an own data property.
 * @throws SyntaxError when the bytes are not JSON; callers translate it into STORE_CORRUPT
 */
export function parseAsciiJson(bytes: Uint8Array): JsonValue {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return deepFreeze(JSON.parse(text) as JsonValue);
}

/**
 * Parse UTF-8 JSON text (a format-5 transition's body) into plain values, deeply frozen unless
 * `frozen` is false (see {@link decodeValue}).
 * @throws SyntaxError when the bytes are not JSON; callers translate it into STORE_CORRUPT
 */
export function parseJsonText(bytes: Uint8Array, frozen: boolean): JsonValue {
  const value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as JsonValue;
  return frozen ? deepFreeze(value) : value;
}

function deepFreeze(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  else for (const key in value) deepFreeze(value[key] as JsonValue);
  return Object.freeze(value) as JsonValue;
}
