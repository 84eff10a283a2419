/**
 * The upcast chain of a shape (README "Shapes"): a state written in version `from` reads in
 * version `to` (≥ `from`) through each version's declared operations in turn, and the functions
 * registered in this process for `call` operations (code, never stored: a process without them
 * fails closed). Writes and reads share it.
 */
import { isJsonObject, upcast } from '@stateflow/core';
import type { JsonObject, UpcastFailureReason, UpcastFunction } from '@stateflow/core';
import type { ShapeDeclaration } from './shape-declarations.js';

const functions = new Map<string, UpcastFunction>();

/** Register (or, with `undefined`, remove) the upcast function `name` for this process. */
export function setUpcastFunction(name: string, fn: UpcastFunction | undefined): void {
  if (fn === undefined) functions.delete(name);
  else functions.set(name, fn);
}

/** The outcome of {@link upcastChain}: the state in version `to`, or the step (the version it leads to) and operation that failed. */
export type ChainResult =
  | { ok: true; state: JsonObject }
  | { ok: false; step: number; op: string; reason: UpcastFailureReason | 'missing-step' | 'invalid-result'; message: string; cause?: unknown };

/** Carry `state` from version `from` to version `to` of `shape` (no validation: the caller checks the result against version `to`). */
export function upcastChain(shape: ShapeDeclaration, state: JsonObject, from: number, to: number): ChainResult {
  if (to < from) return { ok: false, step: to, op: '', reason: 'missing-step', message: `it was written in version ${from}, and versions are upcast only, never down` };
  let current = state;
  for (let v = from + 1; v <= to; v++) {
    const version = shape.versions[v - 1];
    if (version === undefined) return { ok: false, step: v, op: '', reason: 'missing-step', message: `shape ${shape.name} has no version ${v}` };
    if (version.upcast.length === 0) continue;
    const result = upcast(current, version.upcast, { functions });
    if (!result.ok) return { ok: false, step: v, op: result.op, reason: result.reason, message: result.message, ...(result.cause === undefined ? {} : { cause: result.cause }) };
    if (!isJsonObject(result.value)) return { ok: false, step: v, op: '', reason: 'invalid-result', message: 'the upcast state is not a JSON object' };
    current = result.value;
  }
  return { ok: true, state: current };
}
