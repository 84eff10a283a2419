/**
 * Input validation of the store's public methods (validate first, then touch storage).
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { ExpectedRevision, PublishInput } from '../types.js';

/** Longest stream id, in UTF-8 bytes. */
export const MAX_STREAM_BYTES = 1024;
/** Longest idempotency id, in UTF-8 bytes. */
export const MAX_ID_BYTES = 1024;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Check a stream id: non-empty, no control characters, at most 1,024 bytes of UTF-8.
 * @throws STREAM_INVALID
 */
export function checkStream(stream: unknown): asserts stream is string {
  if (typeof stream !== 'string' || stream.length === 0) {
    throw new StateflowError('STREAM_INVALID', `Stream id must be a non-empty string, got ${JSON.stringify(stream)}`, { stream: String(stream) });
  }
  if (CONTROL.test(stream)) {
    throw new StateflowError('STREAM_INVALID', `Stream id ${JSON.stringify(stream)} contains a control character`, { stream });
  }
  if (Buffer.byteLength(stream, 'utf8') > MAX_STREAM_BYTES) {
    throw new StateflowError('STREAM_INVALID', `Stream id is longer than ${MAX_STREAM_BYTES} bytes of UTF-8`, { stream: stream.slice(0, 64) });
  }
}

/**
 * Check a revision argument: a non-negative safe integer.
 * @throws INPUT_INVALID
 */
export function checkCount(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new StateflowError('INPUT_INVALID', `${field} must be a non-negative integer, got ${JSON.stringify(value)}`, { field, reason: 'not a non-negative integer' });
  }
}

function checkExpected(stream: string, value: unknown): asserts value is ExpectedRevision {
  if (value === 'none' || value === 'any') return;
  checkCount(value, `expected[${JSON.stringify(stream)}]`);
}

/**
 * Check the shape of a publish input (patch contents are validated by core against the basis).
 * @throws INPUT_INVALID, STREAM_INVALID
 */
export function checkPublishInput(input: unknown): asserts input is PublishInput {
  if (!isJsonObject(input)) throw new StateflowError('INPUT_INVALID', 'publish input must be an object', { field: 'input' });
  const { changes, expected, id, meta, durability } = input as unknown as Record<string, unknown>;
  if (!isJsonObject(changes)) {
    throw new StateflowError('INPUT_INVALID', 'publish input.changes must be an object of { stream: patch }', { field: 'changes' });
  }
  const streams = Object.keys(changes as object);
  if (streams.length === 0) throw new StateflowError('INPUT_INVALID', 'publish input.changes names no stream', { field: 'changes', reason: 'empty' });
  for (const s of streams) checkStream(s);
  if (expected !== undefined) {
    if (!isJsonObject(expected)) throw new StateflowError('INPUT_INVALID', 'publish input.expected must be an object of { stream: rev | "none" | "any" }', { field: 'expected' });
    for (const [s, e] of Object.entries(expected as object)) {
      checkStream(s);
      checkExpected(s, e);
    }
  }
  if (id !== undefined) {
    if (typeof id !== 'string' || id.length === 0 || Buffer.byteLength(id, 'utf8') > MAX_ID_BYTES) {
      throw new StateflowError('INPUT_INVALID', `publish input.id must be a non-empty string of at most ${MAX_ID_BYTES} bytes`, { field: 'id' });
    }
  }
  if (meta !== undefined && !isJsonObject(meta)) throw new StateflowError('INPUT_INVALID', 'publish input.meta must be a JSON object', { field: 'meta' });
  if (durability !== undefined && durability !== 'buffered' && durability !== 'fsync') {
    throw new StateflowError('INPUT_INVALID', `publish input.durability must be "buffered" or "fsync", got ${JSON.stringify(durability)}`, { field: 'durability' });
  }
}

const SCOPE_STREAM = /^(global$|cwd:|session:)/;

/**
 * Why a stream state is invalid, or `null` when it is valid. Every state is a JSON object; in
 * scope streams (`global`, `cwd:…`, `session:…`) the `lazy` plane, when present, is an object
 * (DESIGN.md "Fail closed").
 */
export function stateProblem(stream: string, state: unknown): string | null {
  if (!isJsonObject(state)) return 'state is not a JSON object';
  if (SCOPE_STREAM.test(stream)) {
    const s = state as JsonObject;
    if (Object.prototype.hasOwnProperty.call(s, 'lazy') && !isJsonObject(s.lazy)) return 'the lazy plane is not an object';
  }
  return null;
}
