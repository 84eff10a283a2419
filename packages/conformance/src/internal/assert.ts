/**
 * Assertions of the suite, on node:assert so that any test runner reports them. Errors are
 * checked by `code` (CONVENTIONS.md "Tests": assert on `err.code`, never on message text alone).
 */
import assert from 'node:assert/strict';
import { isStateflowError, jsonEqual } from '@stateflow/core';
import type { ErrorCode, JsonValue, StateflowError } from '@stateflow/core';

/** Assert `actual` equals `expected` as JSON values (object key order ignored). */
export function assertJsonEqual(actual: unknown, expected: JsonValue, label = 'value'): void {
  if (!jsonEqual(actual as JsonValue, expected)) {
    assert.fail(`${label}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/**
 * Await `action` and assert it rejects with a {@link StateflowError} whose code is `code` (or
 * one of `code` when an array is given: where the contract leaves the choice to the backend).
 * Returns the error so callers can check `details`.
 */
export async function rejectsWithCode<C extends ErrorCode>(
  action: Promise<unknown> | (() => Promise<unknown>),
  code: C | readonly C[],
  label = 'operation',
): Promise<StateflowError<C>> {
  const codes: readonly C[] = Array.isArray(code) ? code : [code as C];
  let result: unknown;
  try {
    result = await (typeof action === 'function' ? action() : action);
  } catch (err) {
    if (isStateflowError(err, ...codes)) return err;
    const seen = isStateflowError(err) ? `StateflowError ${err.code}: ${err.message}` : String(err);
    assert.fail(`${label}: expected StateflowError ${codes.join(' | ')}, got ${seen}`);
  }
  assert.fail(`${label}: expected StateflowError ${codes.join(' | ')}, but it resolved to ${JSON.stringify(result)}`);
}

/** Assert an iterable of async values completes and collect it. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export { assert };
