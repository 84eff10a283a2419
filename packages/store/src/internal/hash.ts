/**
 * Tamper evidence (DESIGN.md "Store model"): transition hash chain and checkpoint state hashes,
 * over RFC 8785 canonical JSON (the `canonicalize` library).
 */
import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
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
  return hash('sha256', prevHash + canonical(transitionBody(t)));
}

/** `sha256(utf8(canonical(state)))` as 64 lowercase hex. */
export function stateHash(state: JsonValue): string {
  return hash('sha256', canonical(state));
}

function canonical(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}
