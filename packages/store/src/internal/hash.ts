/**
 * Tamper evidence (DESIGN.md "Store model"): transition hash chain and checkpoint state hashes,
 * over RFC 8785 canonical JSON ({@link canonicalJson}: the text the `canonicalize` library gives,
 * which the tests keep as its oracle).
 */
import { hash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Transition } from '../types.js';

/** The `prevHash` of seq 1. */
export const GENESIS_HASH = '0'.repeat(64);

/** The hashed body of a transition: every field except `prevHash` and `hash`. */
function transitionBody(t: Omit<Transition, 'hash' | 'prevHash'>): JsonObject {
  const body: JsonObject = { seq: t.seq, time: t.time };
  if (t.id !== undefined) body.id = t.id;
  if (t.meta !== undefined) body.meta = t.meta;
  body.changes = t.changes.map((c) => ({ stream: c.stream, rev: c.rev, patch: c.patch }));
  return body;
}

/** `sha256(utf8(prevHash) ‖ utf8(canonical(body)))` as 64 lowercase hex. */
export function transitionHash(prevHash: string, t: Omit<Transition, 'hash' | 'prevHash'>): string {
  // One-shot `hash` (no Hash object) costs about half of createHash().update().digest() on small inputs.
  return hash('sha256', prevHash + canonicalJson(transitionBody(t)));
}

/** `sha256(utf8(canonical(state)))` as 64 lowercase hex. */
export function stateHash(state: JsonValue): string {
  return hash('sha256', canonicalJson(state));
}

/** A UTF-16 surrogate without its pair: no Unicode text, refused as `canonicalize` refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * RFC 8785 canonical JSON of a JSON value: object keys sorted by UTF-16 code units, strings and
 * numbers as `JSON.stringify` writes them (ECMAScript number serialisation), no whitespace — the
 * same text as the `canonicalize` library, built without its per-character surrogate scan,
 * cycle set and intermediate arrays (a publish hashes every transition: this is its hot loop).
 * @throws TypeError for a string or key with a lone surrogate, a non-finite number, or a value
 *   that is not JSON (as `canonicalize` refuses them)
 */
export function canonicalJson(value: JsonValue): string {
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new TypeError('Lone surrogate is not allowed');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('value has no canonical JSON form (non-finite number)');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? canonicalArray(value) : canonicalObject(value as JsonObject);
    default:
      throw new TypeError(`value has no canonical JSON form (${typeof value})`);
  }
}

function canonicalArray(items: readonly JsonValue[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(items[i] as JsonValue);
  return `${out}]`;
}

function canonicalObject(object: JsonObject): string {
  const keys = Object.keys(object).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = object[key];
    if (member === undefined) continue;
    if (LONE_SURROGATE.test(key)) throw new TypeError('Lone surrogate is not allowed');
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
    first = false;
  }
  return `${out}}`;
}
