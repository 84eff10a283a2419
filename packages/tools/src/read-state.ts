/**
 * The `read_state` handler (seed "Progressive read_state", "Projections", "Semantic
 * references" → dangling-reference sentinel).
 */
import {
  StateflowError,
  applyPatch,
  diff,
  elidePath,
  isPlane,
  isStateflowError,
  jsonByteLength,
  narrowPatch,
  parsePath,
  projectKeys,
  quotePath,
  readBatch,
  readPlaneAware,
} from '@stateflow/core';
import type { JsonObject, JsonValue, ParsedPath, PatchPathStep, Projection, ProjectionResults } from '@stateflow/core';
import { resolveTag, revisionAtTag, shapeOfStream } from '@stateflow/store';
import type { ShapeSelector, StoreView } from '@stateflow/store';
import { captureView, capturedStream, display, requireOwner, soleOwner } from './internal/context.js';
import type { RuntimeContext } from './internal/context.js';
import { danglingReferenceSentinel } from './dangling-reference.js';
import type { DanglingReferenceResult } from './dangling-reference.js';
import { checkToolInput } from './internal/input-validation.js';
import { effectiveView, scopeView } from './internal/views.js';
import { lastTransitionsOf } from './internal/recent-transitions.js';
import type { SelectedOwner } from './selection.js';

/** A `read_state` response: one projection's single or positional result, or the sentinel. */
export type ReadStateResult =
  | ProjectionResults[Projection]
  | { value: JsonValue[] }
  | { meta: unknown[]; keys: unknown[] }
  | { patch: JsonValue[] }
  | DanglingReferenceResult;

/**
 * Default most paths in one `read_state` batch: a batch is one captured view read in request
 * order, so its cost grows with its length; the cap is checked before anything is read.
 */
export const MAX_READ_PATHS = 100;

/**
 * Default most bytes of results in one `read_state` answer (8 MiB of UTF-8 JSON): a transport
 * ceiling, so that a small request naming one large value many times cannot make the server
 * build and send an answer hundreds of times its size.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** What a path addresses once owner binding is done. */
type Target = { kind: 'effective'; at: number | null } | { kind: 'scope'; owner: SelectedOwner; at: number | null };

/**
 * Handles one `read_state` call against one captured view.
 * @throws StateflowError `INPUT_INVALID`, `PATH_SYNTAX`, `PATH_NOT_FOUND`, `PATH_KIND`,
 *   `INDEX_OUT_OF_RANGE`, `OWNER_NOT_SELECTED`, `REVISION_NOT_FOUND`, `HISTORY_NOT_RETAINED`;
 *   `SHAPE_NOT_FOUND`, `SHAPE_UPCAST_FAILED` for a read in a shape.
 */
export async function readState(ctx: RuntimeContext, input: unknown): Promise<ReadStateResult> {
  const request = checkToolInput('read_state', input);
  const projection = (request.projection ?? 'value') as Projection;
  const shape = (request.shape ?? 'current') as ShapeSelector;
  if (Array.isArray(request.paths) && request.paths.length > ctx.maxReadPaths) {
    throw new StateflowError(
      'RESPONSE_TOO_LARGE',
      `read_state reads at most ${ctx.maxReadPaths} paths in one batch, got ${request.paths.length}; split the batch.`,
      { cap: 'paths', limit: ctx.maxReadPaths, requested: request.paths.length },
    );
  }
  const budget = responseBudget(ctx);
  const view = await captureView(ctx);
  if (typeof request.path === 'string') {
    const parsed = parsePath(request.path);
    try {
      return budget.count(await readOne(ctx, view, parsed, projection, shape), 0);
    } catch (err) {
      if (projection !== 'value' || !isStateflowError(err, 'PATH_NOT_FOUND')) throw err;
      const sentinel = danglingReferenceSentinel(ctx, view, parsed);
      if (sentinel === null) throw err;
      return sentinel;
    }
  }
  const paths = request.paths as string[];
  // Syntax and owner errors fail the batch before any history is read.
  const parsedPaths = paths.map(parsePath);
  for (const parsed of parsedPaths) bind(ctx, parsed);
  const results: ProjectionResults[Projection][] = [];
  // Sequential on purpose: the first failing path in request order is the error reported, and
  // the response cap stops the batch at the path that crosses it.
  for (const [index, parsed] of parsedPaths.entries()) results.push(budget.count(await readOne(ctx, view, parsed, projection, shape), index));
  let next = 0;
  return readBatch(paths, projection, () => results[next++] as ProjectionResults[Projection]);
}

/**
 * The byte budget of one answer: each result's JSON is counted as it is read, and the read
 * fails at the first result that takes the total past `maxResponseBytes`.
 */
function responseBudget(ctx: RuntimeContext): { count<T extends ProjectionResults[Projection]>(result: T, index: number): T } {
  let used = 0;
  return {
    count(result, index) {
      used += jsonByteLength(result as unknown as JsonValue, ctx.maxResponseBytes - used);
      if (used > ctx.maxResponseBytes) {
        throw new StateflowError(
          'RESPONSE_TOO_LARGE',
          `read_state answers at most ${ctx.maxResponseBytes} bytes; the result of path ${index + 1} takes the answer past that. ` +
            'Read fewer or smaller paths (projection "keys" shows sizes first).',
          { cap: 'bytes', limit: ctx.maxResponseBytes, index },
        );
      }
      return result;
    },
  };
}

async function readOne(ctx: RuntimeContext, view: StoreView, parsed: ParsedPath, projection: Projection, shape: ShapeSelector): Promise<ProjectionResults[Projection]> {
  const target = await atTag(ctx, bind(ctx, parsed), parsed);
  // A stream no shape governs reads as stored (its current is its stored state) by the paths
  // that cost less: a path read alone (valueAt), the stored patch.
  const governed = shape !== 'stored' && target.kind === 'scope' && (await shapeOfStream(ctx.store, target.owner.stream)) !== null;
  if (!governed && shape === 'current') shape = 'stored';
  if (projection === 'patch') return { patch: display(ctx, await readPatch(ctx, view, target, parsed, shape)) };
  const alone = shape === 'stored' ? await historicalPath(ctx, view, target, parsed) : undefined;
  const value = alone ?? readPlaneAware(await rootAt(ctx, view, target, shape), parsed.steps, parsed.text);
  return projection === 'keys' ? projectKeys(value) : { value: display(ctx, value) };
}

/**
 * A scope read at a past revision (`cwd[3].lazy.memory.x`) that the store answers for the path
 * alone (`Store.valueAt`), so reading one key of a large state costs the path: the path's leading
 * keys, from a plane other than `response` (whose empty values read as absent). The rest of the
 * path (indices, a range) resolves on a spine holding only those keys and the value found, so it
 * gives what the whole state gives, errors included. `undefined` — read the whole state instead —
 * for any other path, or where the keys do not resolve (the whole state then names the error).
 */
async function historicalPath(ctx: RuntimeContext, view: StoreView, target: Target, parsed: ParsedPath): Promise<JsonValue | undefined> {
  if (target.kind !== 'scope' || target.at === null) return undefined;
  const first = parsed.steps[0];
  if (first?.kind !== 'key' || !isPlane(first.key) || first.key === 'response') return undefined;
  checkRevision(target.owner, target.at, capturedStream(view, target.owner).rev);
  const keys: string[] = [];
  for (const step of parsed.steps) {
    if (step.kind !== 'key') break;
    keys.push(step.key);
  }
  const found = await ctx.store.valueAt(target.owner.stream, target.at, keys.map((key) => ({ kind: 'key', key })));
  if (found === undefined) return undefined;
  let spine: JsonValue = found;
  for (const key of keys.reverse()) {
    const parent: JsonObject = {};
    Object.defineProperty(parent, key, { value: spine, enumerable: true, writable: true, configurable: true });
    spine = parent;
  }
  return readPlaneAware(spine, parsed.steps, parsed.text);
}

/**
 * Owner binding: an explicit scope must be selected; an unscoped path binds to the sole
 * selected owner, or aliases the current effective state when several owners are selected.
 */
function bind(ctx: RuntimeContext, parsed: ParsedPath): Target {
  if (parsed.root === 'effective') return { kind: 'effective', at: parsed.at };
  if (parsed.root !== null) return { kind: 'scope', owner: requireOwner(ctx, parsed.root, parsed.text), at: parsed.at };
  const sole = soleOwner(ctx);
  return sole === null ? { kind: 'effective', at: null } : { kind: 'scope', owner: requireOwner(ctx, sole), at: null };
}

/**
 * `target` with a tag selector (`cwd[@before-cleanup]`, store README "Tags") resolved: the scope's
 * revision as of the tag, or for `effective` the tag's seq.
 * @throws TAG_NOT_FOUND; HISTORY_NOT_RETAINED
 */
async function atTag(ctx: RuntimeContext, target: Target, parsed: ParsedPath): Promise<Target> {
  if (parsed.tag === null) return target;
  if (target.kind === 'effective') return { ...target, at: (await resolveTag(ctx.store, parsed.tag)).seq };
  return { ...target, at: await revisionAtTag(ctx.store, target.owner.stream, parsed.tag) };
}

/**
 * The root view a value/keys read starts from, in `shape` (store README "Shapes"): a past
 * revision upcast; the head as captured for `stored` and `current` (declaring a version upgrades
 * every head), upcast for a version number. Effective views are read as stored.
 */
async function rootAt(ctx: RuntimeContext, view: StoreView, target: Target, shape: ShapeSelector): Promise<JsonObject> {
  if (target.kind === 'scope') {
    const current = capturedStream(view, target.owner);
    if (target.at === null && typeof shape !== 'number') return scopeView(current.state);
    const rev = target.at ?? current.rev;
    checkRevision(target.owner, rev, current.rev);
    return scopeView(await ctx.store.stateAt(target.owner.stream, rev, { shape }));
  }
  if (target.at === null) return effectiveView(ctx.owners.map((owner) => capturedStream(view, owner).state), ctx.mode);
  checkTransition(target.at, view.seq);
  return effectiveAt(ctx, target.at);
}

async function effectiveAt(ctx: RuntimeContext, seq: number): Promise<JsonObject> {
  const streams = ctx.owners.map((owner) => owner.stream);
  const states = await ctx.store.statesAt(streams, seq);
  return effectiveView(streams.map((stream) => states[stream] ?? {}), ctx.mode);
}

/**
 * The `patch` projection: the semantic patch of the selected boundary narrowed to the path —
 * a scope's revision (`cwd[3]`, or the current revision), or for `effective` the change of the
 * effective view made by global transition N (`effective[N]`, or the last transition that
 * changed a selected owner). `{}` = no change there, `null` = deleted there.
 */
async function readPatch(ctx: RuntimeContext, view: StoreView, target: Target, parsed: ParsedPath, shape: ShapeSelector): Promise<JsonValue> {
  rejectRange(parsed);
  let before: JsonObject;
  let after: JsonObject;
  let patch: JsonObject;
  if (target.kind === 'scope') {
    const current = capturedStream(view, target.owner);
    const rev = target.at ?? current.rev;
    if (target.at !== null) checkRevision(target.owner, rev, current.rev);
    if (rev === 0) throw noPatch(`${target.owner.scope} has no transition at revision 0 (its empty initial state)`, target.owner.stream, current.rev);
    if (shape === 'stored') {
      [patch, before] = await Promise.all([ctx.store.patchAt(target.owner.stream, rev), ctx.store.stateAt(target.owner.stream, rev - 1)]);
      after = applyPatch(before, patch);
    } else {
      [before, after] = await Promise.all([ctx.store.stateAt(target.owner.stream, rev - 1, { shape }), ctx.store.stateAt(target.owner.stream, rev, { shape })]);
      patch = diff(before, after);
    }
  } else {
    const seq = target.at ?? (await lastChangeSeq(ctx, view));
    if (target.at !== null) checkTransition(seq, view.seq);
    if (seq === 0) throw noPatch('the selected owners have no transition yet', 'effective', view.seq);
    [before, after] = await Promise.all([effectiveAt(ctx, seq - 1), effectiveAt(ctx, seq)]);
    patch = diff(before, after);
  }
  const beforeValue = existing(before, parsed);
  // The path must exist on one side of the boundary; otherwise report it like a value read.
  if (beforeValue === undefined) readPlaneAware(target.kind === 'scope' ? scopeView(after) : after, parsed.steps, parsed.text);
  return narrowPatch(patch, parsed.steps as PatchPathStep[], beforeValue);
}

/** The patch projection addresses one value: a range step is a kind error. */
function rejectRange(parsed: ParsedPath): void {
  const range = parsed.steps.find((step) => step.kind === 'range');
  if (range === undefined) return;
  throw new StateflowError(
    'PATH_KIND',
    `Path ${quotePath(parsed.text)}: the patch projection addresses one value, but a range [start:end] at column ${range.column} selects several; read the patch of the whole array.`,
    { path: elidePath(parsed.text), expected: 'member or index', actual: 'range' },
  );
}

/** The value at the path before the boundary, or `undefined` when it does not resolve there. */
function existing(state: JsonObject, parsed: ParsedPath): JsonValue | undefined {
  try {
    // `null` is an absent plane: nothing existed there.
    return readPlaneAware(scopeView(state), parsed.steps, parsed.text) ?? undefined;
  } catch (err) {
    if (isStateflowError(err, 'PATH_NOT_FOUND', 'PATH_KIND', 'INDEX_OUT_OF_RANGE')) return undefined;
    throw err;
  }
}

/** The global seq of the last transition (≤ view.seq) that changed any selected owner. */
async function lastChangeSeq(ctx: RuntimeContext, view: StoreView): Promise<number> {
  let last = 0;
  for (const owner of ctx.owners) {
    const { rev } = capturedStream(view, owner);
    if (rev === 0) continue;
    const head = await ctx.store.head(owner.stream);
    if (head.rev === rev) {
      last = Math.max(last, head.seq);
      continue;
    }
    // a writer moved the head after capture: find the transition of the captured revision
    for (const transition of await lastTransitionsOf(ctx.store, owner.stream, view.seq, 1)) last = Math.max(last, transition.seq);
  }
  return last;
}

function checkRevision(owner: SelectedOwner, rev: number, head: number): void {
  if (rev > head) {
    const { scope, stream } = owner;
    throw new StateflowError(
      'REVISION_NOT_FOUND',
      `${scope}[${rev}] does not exist: ${scope} (stream ${elidePath(stream)}) is at revision ${head}. ` +
        `${scope}[N] counts ${scope}'s own revisions, not global transitions: use the selectors the baseline and patch_state receipts give, ` +
        `or effective[N] with a global transition number.`,
      { stream, rev, head },
    );
  }
}

function checkTransition(seq: number, last: number): void {
  if (seq > last) {
    throw new StateflowError('REVISION_NOT_FOUND', `effective[${seq}] does not exist: the last transition is ${last}.`, {
      stream: 'effective',
      rev: seq,
      head: last,
    });
  }
}

function noPatch(why: string, stream: string, head: number): StateflowError<'REVISION_NOT_FOUND'> {
  return new StateflowError('REVISION_NOT_FOUND', `No patch to show: ${why}.`, { stream, rev: 0, head });
}
