/**
 * Upcasters (store README "Shapes"): the declarative operations that carry a state written under
 * version k of a shape to version k+1, on RFC 6901 JSON pointers, and the one pure function that
 * applies a list of them. They are data so that every reader — the store, the CLI, the server,
 * a client in another language — applies the same steps; a step that only code can express is a
 * `call` of a function the caller registers (never stored, so a reader without it fails closed).
 *
 * Operations, in order, each on the result of the one before:
 *
 * | op | fields | does | source absent |
 * | --- | --- | --- | --- |
 * | `move` | `from`, `path` | removes the value at `from` and sets it at `path` | nothing |
 * | `copy` | `from`, `path` | sets a copy of the value at `from` at `path` | nothing |
 * | `remove` | `path` | removes the value at `path` | nothing |
 * | `default` | `path`, `value` | sets `value` at `path` when nothing is there | sets it |
 * | `wrap` | `path`, `key?` | replaces the value `v` with `[v]`, or `{ [key]: v }` | nothing |
 * | `each` | `path`, `ops` | applies `ops` to every member of the array or object at `path`, pointers relative to the member (`""` is the member) | nothing |
 * | `call` | `fn` | replaces the whole value with `functions.get(fn)(value)` | — |
 *
 * Setting at a pointer creates missing objects on the way (`/a/b` when `a` is absent); a token
 * into an array is an index below its length (replaced) or `-` / the length (appended); removing
 * an array element closes the gap. A pointer through a scalar, an index out of range, or a root
 * (`""`) as the target of `move`/`copy`/`remove`/`default` fails the upcast: the caller reports it
 * (fail closed) and never passes the input off as upcast. The input is never changed: the result
 * shares every untouched subtree with it and every new node is frozen.
 */
import { defineData } from './internal/define-data.js';
import { isJsonObject } from './json.js';
import type { JsonArray, JsonObject, JsonValue } from './json.js';
import { pointerSegments } from './json-pointer.js';
import { snapshotJson } from './json-snapshot.js';

/** One upcast operation (module header). Pointers are RFC 6901 (`""`, `/a/0`, `/a~1b`). */
export type UpcastOperation =
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'remove'; path: string }
  | { op: 'default'; path: string; value: JsonValue }
  | { op: 'wrap'; path: string; key?: string }
  | { op: 'each'; path: string; ops: UpcastOperation[] }
  | { op: 'call'; fn: string };

/** A registered upcast function: the whole value before → after (plain JSON; it may throw). */
export type UpcastFunction = (value: JsonValue) => JsonValue;

/** Why an upcast failed: `pointer` (through a scalar, out of range, a root target), `not-container` (`each` over a scalar), `missing-function`, `function-threw`, `not-json` (a function's result). */
export type UpcastFailureReason = 'pointer' | 'not-container' | 'missing-function' | 'function-threw' | 'not-json';

/** The outcome of {@link upcast}: the value, or where and why it failed (`op`: the operation's index, `2.0` inside an `each`). */
export type UpcastResult =
  | { ok: true; value: JsonValue }
  | { ok: false; op: string; reason: UpcastFailureReason; message: string; cause?: unknown };

/** Options of {@link upcast}. */
export interface UpcastOptions {
  /** The functions `call` operations name (default none: every `call` fails `missing-function`). */
  functions?: ReadonlyMap<string, UpcastFunction>;
}

class Failure {
  constructor(
    readonly op: string,
    readonly reason: UpcastFailureReason,
    readonly message: string,
    readonly cause?: unknown,
  ) {}
}

/**
 * Apply `ops` to `value`, in order (module header). Pure: `value` is not changed; the result
 * shares its untouched subtrees and is deeply frozen. Never throws for a failed operation: the
 * failure is the result, so the caller names the stream, revision and step it was upcasting.
 */
export function upcast(value: JsonValue, ops: readonly UpcastOperation[], options: UpcastOptions = {}): UpcastResult {
  try {
    return { ok: true, value: applyAll(value, ops, '', options.functions ?? new Map()) };
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    return { ok: false, op: err.op, reason: err.reason, message: err.message, ...(err.cause === undefined ? {} : { cause: err.cause }) };
  }
}

/**
 * What is wrong with `ops` as a stored operation list, or `null`: an array of operations with
 * exactly the fields of the table (pointers as RFC 6901 strings, `fn` and `key` non-empty
 * strings, a `default` value without `null` in it), `move`/`copy`/`remove`/`default` not at the
 * root.
 */
export function upcastOperationsProblem(ops: unknown, at = 'upcast'): string | null {
  if (!Array.isArray(ops)) return `${at} must be an array of operations`;
  for (const [i, op] of ops.entries()) {
    const problem = operationProblem(op, `${at}[${i}]`);
    if (problem !== null) return problem;
  }
  return null;
}

const FIELDS: Record<UpcastOperation['op'], readonly string[]> = {
  move: ['op', 'from', 'path'],
  copy: ['op', 'from', 'path'],
  remove: ['op', 'path'],
  default: ['op', 'path', 'value'],
  wrap: ['op', 'path', 'key'],
  each: ['op', 'path', 'ops'],
  call: ['op', 'fn'],
};

function operationProblem(op: unknown, at: string): string | null {
  if (!isJsonObject(op) || typeof op.op !== 'string' || !Object.hasOwn(FIELDS, op.op)) return `${at} must be an object whose op is one of ${Object.keys(FIELDS).join(', ')}`;
  const kind = op.op as UpcastOperation['op'];
  const allowed = FIELDS[kind];
  const extra = Object.keys(op).find((key) => !allowed.includes(key));
  if (extra !== undefined) return `${at} (${kind}) has a field ${JSON.stringify(extra)}; it takes ${allowed.join(', ')}`;
  for (const field of ['from', 'path'] as const) {
    if (!allowed.includes(field)) continue;
    const pointer = op[field];
    if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/')) || /~(?![01])/.test(pointer)) return `${at}.${field} must be a JSON pointer ("" or "/a/0")`;
  }
  if (['move', 'copy', 'remove', 'default'].includes(kind) && op.path === '') return `${at} (${kind}) cannot target the root ""`;
  if ((kind === 'move' || kind === 'copy') && op.from === '') return `${at} (${kind}) cannot take the root "" as its source`;
  if (kind === 'default' && (!('value' in op) || containsNull(op.value as JsonValue))) return `${at}.value must be a JSON value without null`;
  if (kind === 'wrap' && op.key !== undefined && (typeof op.key !== 'string' || op.key === '')) return `${at}.key must be a non-empty string`;
  if (kind === 'call' && (typeof op.fn !== 'string' || op.fn === '')) return `${at}.fn must be a non-empty string (the name a function is registered under)`;
  if (kind === 'each') return upcastOperationsProblem(op.ops, `${at}.ops`);
  return null;
}

function containsNull(value: JsonValue): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(containsNull);
  if (isJsonObject(value)) return Object.values(value).some(containsNull);
  return false;
}

function applyAll(value: JsonValue, ops: readonly UpcastOperation[], prefix: string, functions: ReadonlyMap<string, UpcastFunction>): JsonValue {
  let current = value;
  for (const [i, op] of ops.entries()) current = applyOne(current, op, `${prefix}${i}`, functions);
  return current;
}

function applyOne(value: JsonValue, op: UpcastOperation, at: string, functions: ReadonlyMap<string, UpcastFunction>): JsonValue {
  switch (op.op) {
    case 'move':
    case 'copy': {
      const source = getAt(value, tokensOf(op.from));
      if (source === undefined) return value;
      const without = op.op === 'move' ? removeAt(value, tokensOf(op.from), at) : value;
      return setAt(without, tokensOf(op.path), source, at);
    }
    case 'remove':
      return getAt(value, tokensOf(op.path)) === undefined ? value : removeAt(value, tokensOf(op.path), at);
    case 'default':
      return getAt(value, tokensOf(op.path)) === undefined ? setAt(value, tokensOf(op.path), snapshotJson(op.value), at) : value;
    case 'wrap': {
      const tokens = tokensOf(op.path);
      const found = getAt(value, tokens);
      if (found === undefined) return value;
      const wrapped: JsonValue = op.key === undefined ? [found] : withMember({}, op.key, found);
      return tokens.length === 0 ? frozen(wrapped) : setAt(value, tokens, frozen(wrapped), at);
    }
    case 'each':
      return eachMember(value, op, at, functions);
    case 'call':
      return callFunction(value, op.fn, at, functions);
  }
}

function eachMember(value: JsonValue, op: Extract<UpcastOperation, { op: 'each' }>, at: string, functions: ReadonlyMap<string, UpcastFunction>): JsonValue {
  const tokens = tokensOf(op.path);
  const container = getAt(value, tokens);
  if (container === undefined) return value;
  let next: JsonValue;
  if (Array.isArray(container)) next = frozen(container.map((member) => applyAll(member, op.ops, `${at}.`, functions)));
  else if (isJsonObject(container)) {
    const out: JsonObject = {};
    for (const [key, member] of Object.entries(container)) defineData(out, key, applyAll(member, op.ops, `${at}.`, functions));
    next = frozen(out);
  } else throw new Failure(at, 'not-container', `each at ${JSON.stringify(op.path)} found a ${typeof container}, not an array or object`);
  return tokens.length === 0 ? next : setAt(value, tokens, next, at);
}

function callFunction(value: JsonValue, fn: string, at: string, functions: ReadonlyMap<string, UpcastFunction>): JsonValue {
  const f = functions.get(fn);
  if (f === undefined) throw new Failure(at, 'missing-function', `the upcast function ${JSON.stringify(fn)} is not registered in this process (it is code, not stored with the shape)`);
  let out: JsonValue;
  try {
    out = f(value);
  } catch (err) {
    throw new Failure(at, 'function-threw', `the upcast function ${JSON.stringify(fn)} threw: ${(err as Error)?.message ?? String(err)}`, err);
  }
  try {
    return snapshotJson(out);
  } catch (err) {
    throw new Failure(at, 'not-json', `the upcast function ${JSON.stringify(fn)} returned a value that is not JSON: ${(err as Error).message}`, err);
  }
}

const segmentCache = new Map<string, readonly string[]>();

/** The tokens of `pointer` (cached: an `each` applies the same few pointers to every member). */
function tokensOf(pointer: string): readonly string[] {
  let tokens = segmentCache.get(pointer);
  if (tokens === undefined) {
    tokens = Object.freeze(pointerSegments(pointer));
    if (segmentCache.size >= 4096) segmentCache.clear();
    segmentCache.set(pointer, tokens);
  }
  return tokens;
}

function getAt(value: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const token of tokens) {
    if (Array.isArray(current)) current = isIndex(token) ? current[Number(token)] : undefined;
    else if (isJsonObject(current)) current = Object.hasOwn(current, token) ? current[token] : undefined;
    else return undefined;
  }
  return current;
}

function isIndex(token: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(token);
}

/** `value` with `member` set at `tokens` (≥ 1), missing objects created on the way. */
function setAt(value: JsonValue, tokens: readonly string[], member: JsonValue, at: string): JsonValue {
  const [token, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(value)) {
    const index = token === '-' ? value.length : isIndex(token) ? Number(token) : -1;
    if (index < 0 || index > value.length) throw new Failure(at, 'pointer', `token ${JSON.stringify(token)} is not an index of an array of ${value.length}`);
    const out: JsonArray = [...value];
    out[index] = rest.length === 0 ? member : setAt(index < value.length ? (value[index] as JsonValue) : {}, rest, member, at);
    return frozen(out);
  }
  if (!isJsonObject(value)) throw new Failure(at, 'pointer', `token ${JSON.stringify(token)} steps into a ${value === null ? 'null' : typeof value}`);
  const child = Object.hasOwn(value, token) ? (value[token] as JsonValue) : {};
  return frozen(withMember(copyObject(value), token, rest.length === 0 ? member : setAt(child, rest, member, at)));
}

/** `value` without the member at `tokens` (≥ 1, known to exist). */
function removeAt(value: JsonValue, tokens: readonly string[], at: string): JsonValue {
  if (tokens.length === 0) throw new Failure(at, 'pointer', 'the root cannot be removed');
  const [token, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(value)) {
    const index = Number(token);
    const out: JsonArray = [...value];
    if (rest.length === 0) out.splice(index, 1);
    else out[index] = removeAt(value[index] as JsonValue, rest, at);
    return frozen(out);
  }
  const out = copyObject(value as JsonObject);
  if (rest.length === 0) delete out[token];
  else defineData(out, token, removeAt((value as JsonObject)[token] as JsonValue, rest, at));
  return frozen(out);
}

/** A shallow copy that keeps keys such as `__proto__` as data (spread defines own properties, it never assigns). */
function copyObject(value: JsonObject): JsonObject {
  return { ...value };
}

function withMember(target: JsonObject, key: string, member: JsonValue): JsonObject {
  defineData(target, key, member);
  return target;
}

/** `value`, shallowly frozen (a node built here; its members are frozen already). */
function frozen<T extends JsonValue>(value: T): T {
  Object.freeze(value);
  return value;
}
