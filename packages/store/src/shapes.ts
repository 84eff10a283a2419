/**
 * Shapes (README "Shapes"): a named JSON Schema (2020-12) with a version number, declared for a
 * family of streams on the declaration stream `stateflow:shapes`, with the upcast operations from
 * each version to the next stored beside it. The log keeps what was written; a read chooses the
 * shape it wants — `stored` (the bytes as written), `current` (upcast to the latest version) or
 * a version number — and the store checks every write against the current version and records
 * the version in the transition's `meta.shape`. These functions work over any {@link Store} (in
 * process, or a server's through `openRemoteStore`): the operations are data, so a reader
 * upcasts on its own side.
 */
import { StateflowError, diff, isJsonObject, jsonEqual } from '@stateflow/core';
import type { JsonObject, JsonValue, UpcastFunction, UpcastOperation } from '@stateflow/core';
import { DECLARATION_STREAMS, isReservedStream } from './declarations.js';
import { retryOnConflict } from './conflict-retry.js';
import { familyMatches } from './stream-family.js';
import { Lru } from './internal/lru.js';
import { setUpcastFunction, upcastChain } from './internal/shape-chain.js';
import type { ChainResult } from './internal/shape-chain.js';
import { compiled, firstError, shapeInvalid, shapeOf, shapesOf } from './internal/shape-declarations.js';
import type { ShapeDeclaration } from './internal/shape-declarations.js';
import { governingShape, recordedShape } from './internal/shape-writes.js';
import type { RecordedShape } from './internal/shape-writes.js';
import type { PublishResult, ShapeReadOptions, ShapeSelector, Store, StreamId, Transition } from './types.js';

const SHAPES = DECLARATION_STREAMS.shapes;


/** A declared shape: its name, the stream-family pattern it governs, and every version (version k at index k − 1). */
export interface Shape {
  name: string;
  streams: string;
  versions: { version: number; schema: JsonObject; upcast: readonly UpcastOperation[] }[];
}

/** What {@link setShape} declares as the next version of a shape. */
export interface ShapeVersionInput {
  /** The stream-family pattern (`session:*`): fixed by version 1, repeated unchanged after. */
  streams: string;
  /** A JSON Schema 2020-12 (ajv strict; no `null` inside, as in every stored value). */
  schema: JsonObject;
  /** The operations from the previous version (core `UpcastOperation`); none: states are kept as they are. */
  upcast?: UpcastOperation[];
}

/** One revision that does not read in a version: the stream, the revision and the typed error. */
export interface ShapeCheckFailure {
  stream: StreamId;
  rev: number;
  error: StateflowError;
}

/** What {@link checkShape} found. */
export interface ShapeCheckReport {
  shape: string;
  version: number;
  /** Streams of the family checked. */
  streams: number;
  /** Revisions checked (one per stream, or every retained one with `all`). */
  revisions: number;
  failures: ShapeCheckFailure[];
}

/**
 * Register `fn` as the upcast function `name` in this process (`undefined` removes it): the
 * `call` operations of stored shapes name it. It is code, never stored: a reader without it —
 * another process, the CLI, another language — fails closed with `SHAPE_UPCAST_FAILED`
 * `missing-function` rather than pass the stored state off as upcast.
 */
export function registerUpcastFunction(name: string, fn: UpcastFunction | undefined): void {
  if (typeof name !== 'string' || name === '') throw new StateflowError('INPUT_INVALID', 'An upcast function needs a non-empty name', { field: 'name' });
  if (fn !== undefined && typeof fn !== 'function') throw new StateflowError('INPUT_INVALID', 'An upcast function must be a function', { field: 'fn' });
  setUpcastFunction(name, fn);
}

/** Every declared shape, sorted by name (as of now). */
export async function listShapes(store: Store): Promise<Shape[]> {
  return shapesOf(await store.state(SHAPES)).map(shown).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The name of the shape that governs `stream` now (stream-family precedence), or `null`. */
export async function shapeOfStream(store: Store, stream: StreamId): Promise<string | null> {
  return governingShape(shapesOf(await store.state(SHAPES)), stream)?.name ?? null;
}

/**
 * The shape `name`.
 * @throws SHAPE_NOT_FOUND `{ shape }`
 */
export async function getShape(store: Store, name: string): Promise<Shape> {
  return shown(await declared(store, name));
}

/**
 * Check what version `version` of shape `name` (default: its latest) makes of the store: every
 * stream of its family upcast to it and validated — its head, or with `all` every retained
 * revision. Nothing is written. With `candidate`, the version checked is the one
 * {@link setShape} would declare with it.
 * @throws SHAPE_NOT_FOUND; SHAPE_INVALID for a candidate that is not well-formed
 */
export async function checkShape(store: Store, name: string, options: { all?: boolean; version?: number; candidate?: ShapeVersionInput } = {}): Promise<ShapeCheckReport> {
  const shape = options.candidate === undefined ? await declared(store, name) : shapeOf(name, nextRecord(name, (await store.state(SHAPES))[name], options.candidate));
  const version = options.version ?? shape.versions.length;
  if (!Number.isSafeInteger(version) || version < 1 || version > shape.versions.length) throw notFound(name, version);
  const report: ShapeCheckReport = { shape: name, version, streams: 0, revisions: 0, failures: [] };
  for (const head of await store.streams()) {
    if (!familyMatches(shape.family, head.stream)) continue;
    report.streams++;
    const first = options.all === true ? Math.max(head.origin, 1) : head.rev;
    for (let rev = first; rev <= head.rev; rev++) {
      report.revisions++;
      try {
        await inShape(store, shape, head.stream, rev, version, null);
      } catch (err) {
        if (!(err instanceof StateflowError)) throw err;
        report.failures.push({ stream: head.stream, rev, error: err });
      }
    }
  }
  return report;
}

/**
 * Declare the next version of shape `name` (version 1 when it is new) in one transition on
 * `stateflow:shapes` (meta `{ shape: … }` is the store's; this one carries `{ declared: { shape,
 * version } }` beside the caller's `meta`), after checking every head of the family upcasts to
 * it and validates; then upgrade each head to it ({@link upgradeHeads}). Declaring the latest
 * version again unchanged is a `noop`.
 * @throws SHAPE_INVALID (`heads` when a head would not validate and `force` is not set: nothing
 *   is written); CONFLICT after five concurrent declarations won
 */
export async function setShape(
  store: Store,
  name: string,
  input: ShapeVersionInput,
  options: { force?: boolean; meta?: JsonObject } = {},
): Promise<{ version: number; result: PublishResult; checked: ShapeCheckReport; upgraded: StreamId[] }> {
  const { version, result, checked } = await retryOnConflict({ attempts: 5 }, async () => {
    const head = await store.head(SHAPES);
    const old = (await store.state(SHAPES))[name];
    const record = nextRecord(name, old, input);
    const candidate = shapeOf(name, record);
    const latest = record.versions[record.versions.length - 2];
    if (latest !== undefined && sameVersion(latest, input)) {
      const checked = await checkShape(store, name);
      return { version: candidate.versions.length - 1, result: { status: 'noop', transition: null } as PublishResult, checked };
    }
    const checked = await checkShape(store, name, { candidate: input });
    if (checked.failures.length > 0 && options.force !== true) {
      const first = checked.failures[0] as ShapeCheckFailure;
      throw shapeInvalid(name, 'heads', `Version ${checked.version} of shape ${name} would leave ${checked.failures.length} of ${checked.streams} stream heads invalid (first: ${first.stream}@${first.rev}: ${first.error.message}); fix the upcast or the schema, or force it`);
    }
    const result = await store.publish({ changes: { [SHAPES]: { [name]: record } }, expected: { [SHAPES]: head.rev }, meta: { ...options.meta, declared: { shape: name, version: checked.version } } });
    return { version: checked.version, result, checked };
  });
  return { version, result, checked, upgraded: await upgradeHeads(store, name) };
}

/**
 * Move every head of shape `name`'s family that is in an older version to the latest one: one
 * transition each (meta `{ upgrade: { shape, from, to } }`; the history below it is untouched
 * and upcast on read), with compare-and-set on the head (a write that lands first is upgraded
 * after it). A head whose state reads the same in both versions needs no transition. The
 * streams upgraded, sorted.
 * @throws SHAPE_NOT_FOUND; SHAPE_UPCAST_FAILED / SHAPE_VIOLATION for a head that does not upcast
 */
export async function upgradeHeads(store: Store, name: string): Promise<StreamId[]> {
  const shape = await declared(store, name);
  const to = shape.versions.length;
  const upgraded: StreamId[] = [];
  for (const { stream } of await store.streams()) {
    if (!familyMatches(shape.family, stream)) continue;
    const done = await retryOnConflict({ attempts: 5 }, async () => {
      const head = await store.head(stream);
      const from = versionIn(shape, await versionAt(store, stream, head.rev));
      if (from >= to) return false;
      const state = await store.stateAt(stream, head.rev);
      const upcast = await inShape(store, shape, stream, head.rev, to, state);
      if (jsonEqual(upcast, state)) return false;
      const result = await store.publish({ changes: { [stream]: diff(state, upcast) }, expected: { [stream]: head.rev }, meta: { upgrade: { shape: name, from, to } } });
      return result.status === 'accepted';
    });
    if (done) upgraded.push(stream);
  }
  return upgraded;
}

/**
 * The shape revision `rev` of `stream` was written in (`meta.shape` of the transition that
 * produced it), or `null`: version 0, before any shape (revision 0 too).
 * @throws as `store.revisionSeq` / `store.transition`
 */
export async function versionAt(store: Store, stream: StreamId, rev: number): Promise<{ name: string; version: number } | null> {
  if (rev === 0) return null;
  const transition = await store.transition(await store.revisionSeq(stream, rev));
  return recordedShape(transition.meta, stream);
}

/**
 * The state of `stream` at revision `rev` in shape `shape` (`'stored'`: `store.stateAt`): for a
 * stream no shape governs, `current` is the stored state and a version is `SHAPE_NOT_FOUND`.
 * Results are kept per revision (an LRU of {@link MEMO_REVISIONS} per store, dropped when a shape is declared).
 * @throws SHAPE_NOT_FOUND `{ shape, version }` for a version that is not declared;
 *   SHAPE_UPCAST_FAILED `{ stream, rev, shape, step, op, reason }` when the upcast cannot apply
 *   or its result fails the schema; as `store.stateAt`
 */
export async function stateAtShape(store: Store, stream: StreamId, rev: number, shape: ShapeSelector = 'current'): Promise<JsonObject> {
  checkShapeSelector(shape);
  if (shape === 'stored') return store.stateAt(stream, rev);
  const governing = governingShape(shapesOf(await store.state(SHAPES)), stream);
  if (governing === undefined) {
    if (typeof shape === 'number') throw new StateflowError('SHAPE_NOT_FOUND', `No shape governs ${stream}, so it has no version ${shape}; read it stored or current`, { shape: '', version: shape });
    return store.stateAt(stream, rev);
  }
  const target = shape === 'current' ? governing.versions.length : shape;
  if (target > governing.versions.length) throw notFound(governing.name, target);
  return inShape(store, governing, stream, rev, target, null);
}

/**
 * The core `diff` from `stream`@`revA` to `stream`@`revB`, both read in shape `shape`.
 * @throws as {@link stateAtShape}
 */
export async function diffInShape(store: Store, stream: StreamId, revA: number, revB: number, shape: ShapeSelector = 'current'): Promise<JsonObject> {
  return diff(await stateAtShape(store, stream, revA, shape), await stateAtShape(store, stream, revB, shape));
}

/**
 * `store.transitions(range)` with each change's patch re-expressed in shape `shape`: the diff
 * between the stream's revisions before and after, both read in that shape (declaration streams
 * and `'stored'` as stored). A change that reads as no change keeps an empty patch.
 * @throws as {@link stateAtShape}
 */
export async function* transitionsInShape(store: Store, range: { from?: number; to?: number; stream?: StreamId } = {}, shape: ShapeSelector = 'current'): AsyncIterable<Transition> {
  checkShapeSelector(shape);
  for await (const transition of store.transitions(range)) {
    if (shape === 'stored') {
      yield transition;
      continue;
    }
    const changes = [];
    for (const change of transition.changes) {
      changes.push(isReservedStream(change.stream) ? change : { ...change, patch: await diffInShape(store, change.stream, change.rev - 1, change.rev, shape) });
    }
    yield Object.freeze({ ...transition, changes });
  }
}

/** Whether a read asks for a shape other than the stored one (`stored` or none: `false`). */
export function shaped<T extends ShapeReadOptions>(options: T | undefined): options is T & { shape: Exclude<ShapeSelector, 'stored'> } {
  return options?.shape !== undefined && options.shape !== 'stored';
}

/** Revisions read in a shape that each store keeps (an LRU; a history page or a replay of a few thousand revisions fits). */
export const MEMO_REVISIONS = 4096;

const memos = new WeakMap<Store, { shapes: readonly ShapeDeclaration[]; lru: Lru<string, JsonObject> }>();

/** `stream`@`rev` in version `target` of `shape`, memoised per revision; `stored`: the stored state when the caller has it. */
async function inShape(store: Store, shape: ShapeDeclaration, stream: StreamId, rev: number, target: number, stored: JsonObject | null): Promise<JsonObject> {
  if (rev === 0) return stored ?? (await store.stateAt(stream, 0));
  const shapes = shapesOf(await store.state(SHAPES));
  let memo = memos.get(store);
  if (memo?.shapes !== shapes) memos.set(store, (memo = { shapes, lru: new Lru(MEMO_REVISIONS) }));
  // Only a declared shape's results are kept (a candidate being checked is not one).
  const lru = shapes.includes(shape) ? memo.lru : null;
  const key = `${shape.name}\u0000${target}\u0000${rev}\u0000${stream}`;
  const hit = lru?.get(key);
  if (hit !== undefined) return hit;
  const [from, state] = await Promise.all([versionOf(store, shape, stream, rev), stored ?? store.stateAt(stream, rev)]);
  const result: ChainResult = upcastChain(shape, state, from, target);
  const fail = (step: number, op: string, reason: StateflowError<'SHAPE_UPCAST_FAILED'>['details']['reason'], why: string, cause?: unknown): never => {
    throw new StateflowError(
      'SHAPE_UPCAST_FAILED',
      `${stream}@${rev} (written in version ${from} of shape ${shape.name}) does not read in version ${target}: step ${step}${op === '' ? '' : `, operation ${op}`}: ${why}; read it stored, or fix the shape`,
      { stream, rev, shape: shape.name, step, op, reason },
      cause === undefined ? undefined : { cause },
    );
  };
  if (!result.ok) return fail(result.step, result.op, result.reason, result.message, result.cause);
  // A state written in the target version was validated when it was written.
  if (from !== target) {
    const validate = compiled(shape.name, target, shape.versions[target - 1]?.schema as JsonObject);
    if (!validate(result.state)) {
      const error = firstError(validate);
      fail(target, '', 'invalid-result', `${error.message} (rule ${error.rule} at ${error.schemaPath})`);
    }
  }
  lru?.set(key, result.state);
  return result.state;
}

/**
 * Revisions whose version was read, per store, shape and stream. The version recorded along a
 * stream never decreases (every write records the current version of the shape governing it
 * then; versions are only appended, patterns never change, shapes are never removed, and a write
 * to a head in an older version is refused), so a version read at two revisions holds at every
 * revision between them: a pass over a history reads O(log n) transitions per version boundary,
 * not one per revision.
 */
const samples = new WeakMap<Store, Map<string, Map<number, number>>>();

/** The version of `shape` revision `rev` of `stream` was written in (0: before it). */
async function versionOf(store: Store, shape: ShapeDeclaration, stream: StreamId, rev: number): Promise<number> {
  let byStream = samples.get(store);
  if (byStream === undefined) samples.set(store, (byStream = new Map()));
  const key = `${shape.name}\u0000${stream}`;
  let known = byStream.get(key);
  if (known === undefined) byStream.set(key, (known = new Map()));
  const read = async (r: number): Promise<number> => {
    let v = known.get(r);
    if (v === undefined) known.set(r, (v = versionIn(shape, await versionAt(store, stream, r))));
    return v;
  };
  if (known.has(rev)) return known.get(rev) as number;
  let lo = -1;
  let hi = Infinity;
  for (const r of known.keys()) {
    if (r < rev && r > lo) lo = r;
    if (r > rev && r < hi) hi = r;
  }
  if (hi === Infinity) hi = (await store.head(stream)).rev;
  // The origin's own transition may be pruned (its state is the checkpoint): the first
  // transition known to be retained is the one after it.
  if (lo === -1) lo = (await store.head(stream)).origin + 1;
  if (lo >= rev || hi <= rev) return read(rev);
  // Bisect between the nearest known revisions until rev lies between two of one version.
  while (hi - lo > 1 && (await read(lo)) !== (await read(hi))) {
    const mid = Math.floor((lo + hi) / 2);
    if (mid === rev) return read(rev);
    if (mid < rev) lo = mid;
    else hi = mid;
  }
  return read(lo);
}

/** The version of `shape` a recorded entry says (0: none, or another shape's). */
function versionIn(shape: ShapeDeclaration, recorded: RecordedShape | null): number {
  return recorded !== null && recorded.name === shape.name ? recorded.version : 0;
}

async function declared(store: Store, name: string): Promise<ShapeDeclaration> {
  const shape = shapesOf(await store.state(SHAPES)).find((s) => s.name === name);
  if (shape === undefined) throw notFound(name);
  return shape;
}

function notFound(name: string, version?: number): StateflowError<'SHAPE_NOT_FOUND'> {
  const what = version === undefined ? `There is no shape ${name}` : `Shape ${name} has no version ${version}`;
  return new StateflowError('SHAPE_NOT_FOUND', `${what}; list the shapes with "stateflow shape list"`, version === undefined ? { shape: name } : { shape: name, version });
}

/** The stored record of `name` with `input` appended as its next version. */
function nextRecord(name: string, old: JsonValue | undefined, input: ShapeVersionInput): { streams: string; versions: JsonObject[] } {
  if (!isJsonObject(input) || !isJsonObject(input.schema)) throw shapeInvalid(String(name), 'record', `Shape ${String(name)} needs { streams, schema, upcast? }`);
  const previous = isJsonObject(old) && Array.isArray(old.versions) ? (old.versions as JsonObject[]) : [];
  const version: JsonObject = input.upcast === undefined ? { schema: input.schema } : { schema: input.schema, upcast: input.upcast as unknown as JsonValue };
  return { streams: input.streams, versions: [...previous, version] };
}

function sameVersion(latest: JsonValue, input: ShapeVersionInput): boolean {
  return isJsonObject(latest) && jsonEqual(latest.schema as JsonValue, input.schema) && jsonEqual((latest.upcast ?? []) as JsonValue, (input.upcast ?? []) as unknown as JsonValue);
}

/**
 * Check a shape selector a caller passed (`'stored'`, `'current'` or a version number ≥ 1), as
 * every read in a shape does first: for an option checked where it is given, not at first use.
 * @throws StateflowError `INPUT_INVALID` `{ field: 'shape' }`
 */
export function checkShapeSelector(shape: ShapeSelector): void {
  if (shape === 'stored' || shape === 'current' || (Number.isSafeInteger(shape) && (shape as number) >= 1)) return;
  throw new StateflowError('INPUT_INVALID', `shape must be "stored", "current" or a version number ≥ 1, got ${JSON.stringify(shape)}`, { field: 'shape' });
}

function shown(shape: ShapeDeclaration): Shape {
  return { name: shape.name, streams: shape.family.pattern, versions: shape.versions.map((v) => ({ version: v.version, schema: v.schema, upcast: v.upcast })) };
}
