/**
 * Input validation of the store's public methods (validate first, then touch storage).
 */
import { StateTree, StateflowError, describeInput, isJsonObject, isStateflowError, snapshotJson } from '@stateflow/core';
import type { JsonObject, PatchPathStep } from '@stateflow/core';
import type { ExpectedRevision, PublishInput } from '../types.js';

/** Longest stream id, in UTF-8 bytes. */
const MAX_STREAM_BYTES = 1024;
/** Longest idempotency id, in UTF-8 bytes. */
const MAX_ID_BYTES = 1024;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A surrogate code unit not part of a pair (a `u` regex matches pairs as one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Check a stream id: non-empty, well-formed Unicode (no lone surrogates), no control characters,
 * at most 1,024 bytes of UTF-8.
 * @throws STREAM_INVALID
 */
export function checkStream(stream: unknown): asserts stream is string {
  if (typeof stream !== 'string' || stream.length === 0) {
    throw new StateflowError('STREAM_INVALID', `Stream id must be a non-empty string, got ${describeInput(stream)}`, { stream: describeInput(stream) });
  }
  if (LONE_SURROGATE.test(stream)) {
    // A lone surrogate would be stored as U+FFFD: two different ids would share one stream.
    throw new StateflowError('STREAM_INVALID', `Stream id ${describeInput(stream)} is not well-formed Unicode (lone surrogate)`, { stream: describeInput(stream) });
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
    throw new StateflowError('INPUT_INVALID', `${field} must be a non-negative integer, got ${describeInput(value)}`, { field, reason: 'not a non-negative integer' });
  }
}

/**
 * Check an expected revision: a count, `'none'` or `'any'`.
 * @throws INPUT_INVALID
 */
export function checkExpected(field: string, value: unknown): asserts value is ExpectedRevision {
  if (value === 'none' || value === 'any') return;
  checkCount(value, field);
}

/**
 * Check an idempotency id: a non-empty, well-formed string of at most {@link MAX_ID_BYTES} bytes
 * of UTF-8.
 * @throws INPUT_INVALID
 */
export function checkId(id: unknown, field: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || LONE_SURROGATE.test(id) || Buffer.byteLength(id, 'utf8') > MAX_ID_BYTES) {
    throw new StateflowError('INPUT_INVALID', `${field} must be a non-empty, well-formed string of at most ${MAX_ID_BYTES} bytes`, { field });
  }
}

/**
 * Check a principal (whose idempotency ids an input's are): the rules of a stream id — non-empty,
 * well-formed, no control characters (its record key ends it with 0x00), at most 1,024 bytes.
 * @throws INPUT_INVALID `{ field }`
 */
export function checkPrincipal(principal: unknown, field: string): asserts principal is string {
  if (typeof principal !== 'string' || principal.length === 0 || LONE_SURROGATE.test(principal) || CONTROL.test(principal) || Buffer.byteLength(principal, 'utf8') > MAX_STREAM_BYTES) {
    throw new StateflowError('INPUT_INVALID', `${field} must be a non-empty, well-formed string without control characters, of at most ${MAX_STREAM_BYTES} bytes`, { field });
  }
}

/**
 * Check an options argument: `undefined` or an object.
 * @throws INPUT_INVALID
 */
export function checkOptions(options: unknown, field: string): void {
  if (options !== undefined && !isJsonObject(options)) {
    throw new StateflowError('INPUT_INVALID', `${field} must be an object when given`, { field });
  }
}

/**
 * Check a path of key and index steps (core's `PatchPathStep`; other fields ignored) and return
 * a copy of its steps, each read once.
 * @throws INPUT_INVALID `{ field: 'path' }`
 */
export function checkPath(path: unknown): PatchPathStep[] {
  const bad = (reason: string): StateflowError => new StateflowError('INPUT_INVALID', `path must be an array of { kind: 'key', key } and { kind: 'index', index } steps: ${reason}`, { field: 'path', reason });
  if (!Array.isArray(path)) throw bad(`got ${describeInput(path)}`);
  return path.map((step: unknown, i) => {
    const { kind, key, index } = isJsonObject(step) ? (step as { kind?: unknown; key?: unknown; index?: unknown }) : {};
    if (kind === 'key' && typeof key === 'string') return { kind, key };
    if (kind === 'index' && typeof index === 'number' && Number.isSafeInteger(index) && index >= 0) return { kind, index };
    throw bad(`step ${i + 1} is ${describeInput(step)}`);
  });
}

/**
 * Check a list of stream ids.
 * @throws INPUT_INVALID when `streams` is not an array; STREAM_INVALID for a bad id.
 */
export function checkStreams(streams: unknown, field = 'streams'): asserts streams is string[] {
  if (!Array.isArray(streams)) throw new StateflowError('INPUT_INVALID', `${field} must be an array of stream ids`, { field });
  for (const s of streams) checkStream(s);
}

/**
 * A deep, deeply frozen copy of a caller's JSON object (transition `meta`), read once: later
 * mutation of the caller's value cannot change what is stored, hashed or handed to watchers,
 * and keys such as `__proto__` stay data. The copy is core's {@link snapshotJson}; its
 * `PATCH_INVALID` is reported here as bad input of the named field.
 * @throws INPUT_INVALID `{ field, reason }` naming the RFC 6901 pointer of the first value that
 *   is not JSON: `undefined`, NaN, ±Infinity, a bigint, function or symbol, a class instance
 *   (e.g. `Date`, `Map`), a sparse array, a cycle, a string or key with a lone surrogate, or
 *   nesting deeper than core's `MAX_PATCH_DEPTH`.
 */
export function jsonObjectCopy(value: unknown, field: string): JsonObject {
  if (!isJsonObject(value)) throw new StateflowError('INPUT_INVALID', `${field} must be a JSON object`, { field, reason: 'not an object' });
  try {
    return snapshotJson(value) as JsonObject;
  } catch (err) {
    if (!isStateflowError(err, 'PATCH_INVALID')) throw err;
    const at = err.details.at ?? '';
    const reason = err.details.problem ?? err.message;
    throw new StateflowError('INPUT_INVALID', `${field} is not JSON at "${at === '' ? '/' : at}": ${reason}`, { field, reason: `${reason} (at "${at}")` }, { cause: err });
  }
}

/**
 * Check the shape of a publish input and return a normalised copy whose fields were each read
 * once (patch contents are validated by core against the basis when the publish is staged;
 * `meta` is copied by {@link jsonObjectCopy}).
 * @throws INPUT_INVALID, STREAM_INVALID
 */
export function checkPublishInput(input: unknown): PublishInput {
  if (!isJsonObject(input)) throw new StateflowError('INPUT_INVALID', 'publish input must be an object', { field: 'input' });
  const { changes, expected, id, principal, meta, durability } = input as unknown as Record<string, unknown>;
  if (!isJsonObject(changes)) {
    throw new StateflowError('INPUT_INVALID', 'publish input.changes must be an object of { stream: patch }', { field: 'changes' });
  }
  const streams = Object.keys(changes as object);
  if (streams.length === 0) throw new StateflowError('INPUT_INVALID', 'publish input.changes names no stream', { field: 'changes', reason: 'empty' });
  const checked: PublishInput = { changes: {} };
  for (const s of streams) {
    checkStream(s);
    defineData(checked.changes, s, (changes as Record<string, unknown>)[s]);
  }
  if (expected !== undefined) {
    if (!isJsonObject(expected)) throw new StateflowError('INPUT_INVALID', 'publish input.expected must be an object of { stream: rev | "none" | "any" }', { field: 'expected' });
    checked.expected = {};
    for (const [s, e] of Object.entries(expected as object)) {
      checkStream(s);
      checkExpected(`expected[${JSON.stringify(s)}]`, e);
      defineData(checked.expected, s, e);
    }
  }
  if (id !== undefined) {
    checkId(id, 'publish input.id');
    checked.id = id;
  }
  if (principal !== undefined) {
    checkPrincipal(principal, 'publish input.principal');
    checked.principal = principal;
  }
  if (meta !== undefined) checked.meta = jsonObjectCopy(meta, 'meta');
  if (durability !== undefined) {
    if (durability !== 'buffered' && durability !== 'fsync') {
      throw new StateflowError('INPUT_INVALID', `publish input.durability must be "buffered" or "fsync", got ${describeInput(durability)}`, { field: 'durability' });
    }
    checked.durability = durability;
  }
  return checked;
}

/**
 * Run an input check, turning anything thrown by the caller's own objects (a throwing getter, a
 * revoked Proxy) into INPUT_INVALID, so that bad input never escapes as an untyped error.
 * @throws INPUT_INVALID, or the StateflowError the check threw
 */
export function checkedInput<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof StateflowError) throw err;
    throw new StateflowError('INPUT_INVALID', `${field} could not be read: ${err instanceof Error ? err.message : String(err)}`, { field }, { cause: err });
  }
}

/** Set `key` as an own data property (a `__proto__` stream id stays data). */
function defineData<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const SCOPE_STREAM = /^(global$|cwd:|session:)/;
const LAZY = [{ kind: 'key', key: 'lazy' }] as const;

/**
 * Why a stream state (plain, or a tree) is invalid, or `null` when it is valid. Every state is a JSON object; in
 * scope streams (`global`, `cwd:…`, `session:…`) the `lazy` plane, when present, is an object
 * (DESIGN.md "Fail closed").
 */
export function stateProblem(stream: string, state: unknown): string | null {
  if (state instanceof StateTree) {
    // A tree is an object; only its lazy plane's kind is read (nothing is built).
    const lazy = SCOPE_STREAM.test(stream) ? state.kindAt(LAZY) : undefined;
    return lazy === undefined || lazy === 'object' ? null : 'the lazy plane is not an object';
  }
  if (!isJsonObject(state)) return 'state is not a JSON object';
  if (SCOPE_STREAM.test(stream)) {
    const s = state as JsonObject;
    if (Object.prototype.hasOwnProperty.call(s, 'lazy') && !isJsonObject(s.lazy)) return 'the lazy plane is not an object';
  }
  return null;
}

/**
 * The `prefer`, `dryRun`, `id` and `principal` of a merge, an undo or a fork input, checked into `into`.
 * @throws INPUT_INVALID `{ field }` naming the one that is wrong
 */
export function checkSettlement(
  fields: { prefer?: unknown; dryRun?: unknown; id?: unknown; principal?: unknown },
  into: { prefer?: 'ours' | 'theirs'; dryRun?: boolean; id?: string; principal?: string },
): void {
  const { prefer, dryRun, id, principal } = fields;
  if (prefer !== undefined) {
    if (prefer !== 'ours' && prefer !== 'theirs') throw new StateflowError('INPUT_INVALID', `prefer must be "ours" or "theirs", got ${describeInput(prefer)}`, { field: 'prefer' });
    into.prefer = prefer;
  }
  if (dryRun !== undefined) {
    if (typeof dryRun !== 'boolean') throw new StateflowError('INPUT_INVALID', `dryRun must be a boolean, got ${describeInput(dryRun)}`, { field: 'dryRun' });
    into.dryRun = dryRun;
  }
  if (id !== undefined) {
    checkId(id, 'id');
    into.id = id;
  }
  if (principal !== undefined) {
    checkPrincipal(principal, 'principal');
    into.principal = principal;
  }
}
