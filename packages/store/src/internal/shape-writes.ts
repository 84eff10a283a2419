/**
 * Writes under a shape (README "Shapes"): publication asks this module, for each stream a
 * transition changes, which shape governs it (the declarations as the group leaves them), checks
 * the resulting state against that shape's current version, and records `{ name, version }` in
 * the transition's `meta.shape`. A stream whose head is still in an older version takes only
 * its upgrade (a transition whose `meta.upgrade` names the shape and the version) until it is
 * upgraded: a patch written against the old shape is not guessed at.
 */
import { StateflowError, isJsonObject, jsonEqual } from '@stateflow/core';
import type { JsonObject, StateTree } from '@stateflow/core';
import { DECLARATION_STREAMS } from '../declarations.js';
import { governingFamily } from '../stream-family.js';
import type { StreamId, Transition } from '../types.js';
import { currentTreeOf } from './current-state.js';
import { logRecord } from './log-reads.js';
import { upcastChain } from './shape-chain.js';
import { compiled, firstError, shapesOf } from './shape-declarations.js';
import type { ShapeDeclaration } from './shape-declarations.js';
import { headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';
import type { HeadRecord } from './records.js';

/** What this module reads of a publication group (publication's `Group`): the states, heads and transitions staged before. */
interface GroupView {
  states: ReadonlyMap<StreamId, StateTree>;
  heads: ReadonlyMap<StreamId, HeadRecord>;
  staged: readonly { transition: Transition }[];
}

/** What a transition records of a stream's shape: `meta.shape[stream]`. */
export interface RecordedShape {
  name: string;
  version: number;
}

/** The shape recorded for `stream` in a transition's meta (`{ name, version }`), or `null` (version 0: before any shape). */
export function recordedShape(meta: JsonObject | undefined, stream: StreamId): RecordedShape | null {
  const entry = isJsonObject(meta?.shape) ? meta.shape[stream] : undefined;
  if (!isJsonObject(entry) || typeof entry.name !== 'string' || typeof entry.version !== 'number') return null;
  return { name: entry.name, version: entry.version };
}

/**
 * Whether the head state of `stream` reads the same in version `to` as in `from`: then a patch
 * means the same in both, and no upgrade transition is needed (a version without operations, or
 * operations that find nothing to change in this stream).
 */
async function upcastKeeps(ctx: StoreContext, group: GroupView, stream: StreamId, shape: ShapeDeclaration, from: number, to: number): Promise<boolean> {
  const before = (group.states.get(stream) ?? (await currentTreeOf(ctx, stream))).state();
  const result = upcastChain(shape, before, from, to);
  return result.ok && jsonEqual(result.state, before);
}

/**
 * What is wrong with the shape versions a transition records (`meta.shape`) against the
 * declarations as of that transition (`shapes`, the state of `stateflow:shapes`), or `null`:
 * each recorded version must be declared (the audit's check).
 */
export function recordedShapesProblem(meta: JsonObject | undefined, shapes: JsonObject): string | null {
  if (meta?.shape === undefined) return null;
  if (!isJsonObject(meta.shape)) return 'meta.shape is not an object of { name, version } per stream';
  const declared = shapesOf(shapes);
  for (const stream of Object.keys(meta.shape)) {
    const entry = recordedShape(meta, stream);
    if (entry === null) return `meta.shape of ${stream} is not { name, version }`;
    const shape = declared.find((s) => s.name === entry.name);
    if (shape === undefined || !Number.isSafeInteger(entry.version) || entry.version < 1 || entry.version > shape.versions.length) {
      return `${stream} is recorded in version ${entry.version} of shape ${entry.name}, which is not declared (it has ${shape?.versions.length ?? 0} versions here)`;
    }
  }
  return null;
}

/** The shape governing `stream` among `shapes` (stream-family precedence), or `undefined`. */
export function governingShape(shapes: readonly ShapeDeclaration[], stream: StreamId): ShapeDeclaration | undefined {
  return governingFamily(shapes, stream);
}

/** The declarations as the group will leave them. */
async function declaredShapes(ctx: StoreContext, group: GroupView): Promise<readonly ShapeDeclaration[]> {
  const staged = group.states.get(DECLARATION_STREAMS.shapes);
  // A store without shapes pays one map lookup per publish.
  if (staged === undefined && headOf(ctx, DECLARATION_STREAMS.shapes).rev === 0) return [];
  const tree = staged ?? (await currentTreeOf(ctx, DECLARATION_STREAMS.shapes));
  return shapesOf(tree.state());
}

/** The version each stream's head was written in, for the head seq it was read at (a sole writer reads each once). */
const headVersions = new WeakMap<StoreContext, Map<StreamId, { seq: number; shape: RecordedShape | null }>>();

async function headShape(ctx: StoreContext, group: GroupView, stream: StreamId): Promise<RecordedShape | null> {
  const head = group.heads.get(stream) ?? headOf(ctx, stream);
  const staged = group.staged.find((s) => s.transition.seq === head.seq);
  if (staged !== undefined) return recordedShape(staged.transition.meta, stream);
  let known = headVersions.get(ctx);
  if (known === undefined) headVersions.set(ctx, (known = new Map()));
  const cached = known.get(stream);
  if (cached !== undefined && cached.seq === head.seq) return cached.shape;
  const record = await logRecord(ctx, head.seq, stream);
  const shape = 'pruned' in record ? null : recordedShape(record.meta, stream);
  known.set(stream, { seq: head.seq, shape });
  return shape;
}

/**
 * The shape entries a transition records for its changed streams (`meta.shape`), after checking
 * each resulting state against its shape's current version; `null` when no stream is governed.
 * @throws SHAPE_VIOLATION `{ stream, shape, version, path, rule, schemaPath }`: the state does
 *   not validate, or (`rule: 'version'`) the head is in an older version and `meta.upgrade`
 *   does not name this upgrade
 */
export async function shapesOfWrite(ctx: StoreContext, group: GroupView, states: ReadonlyMap<StreamId, StateTree>, meta: JsonObject | undefined): Promise<JsonObject | null> {
  const shapes = await declaredShapes(ctx, group);
  if (shapes.length === 0) return null;
  let recorded: JsonObject | null = null;
  for (const [stream, tree] of states) {
    const shape = governingShape(shapes, stream);
    if (shape === undefined) continue;
    const state = tree.state();
    const current = shape.versions[shape.versions.length - 1] as ShapeDeclaration['versions'][number];
    const violation = (path: string, rule: string, schemaPath: string, why: string): StateflowError<'SHAPE_VIOLATION'> =>
      new StateflowError('SHAPE_VIOLATION', `The write to ${stream} does not fit shape ${shape.name} version ${current.version}: ${why}; nothing was written`, { stream, shape: shape.name, version: current.version, path, rule, schemaPath });
    if ((group.heads.get(stream) ?? headOf(ctx, stream)).rev > 0) {
      const head = await headShape(ctx, group, stream);
      const headVersion = head?.name === shape.name ? head.version : 0;
      const upgrade = isJsonObject(meta?.upgrade) && meta.upgrade.shape === shape.name && meta.upgrade.to === current.version;
      if (headVersion < current.version && !upgrade && !(await upcastKeeps(ctx, group, stream, shape, headVersion, current.version))) {
        throw violation('', 'version', '', `its head is in version ${headVersion}, and writes wait for the upgrade to version ${current.version} (retry once it is recorded; stateflow shape set upgrades every head)`);
      }
    }
    const validate = compiled(shape.name, current.version, current.schema);
    if (!validate(state)) {
      const error = firstError(validate);
      throw violation(error.path, error.rule, error.schemaPath, `${error.message} (rule ${error.rule} at ${error.schemaPath})`);
    }
    recorded ??= {};
    Object.defineProperty(recorded, stream, { value: { name: shape.name, version: current.version }, enumerable: true, writable: true, configurable: true });
  }
  return recorded;
}
