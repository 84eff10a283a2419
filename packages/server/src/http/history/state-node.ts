/**
 * One level of a state tree for the history page (ui README "Views", "State tree at the cursor"): the value at
 * a JSON pointer with its immediate children, one page at a time, each child marked when the
 * transition being looked at changed it and, in the effective view, with the scope it comes
 * from and what it shadows. A level is the `keys` projection (core `projectKeys`) plus what the
 * page needs to draw and copy it; nothing below the level is sent.
 */
import { StateflowError, hasOwn, isJsonObject, jsonEqual, kindOf, narrowPatch, pointerSegments } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { NodeChild, NodePage, Scope, ShownValue, ValueSummary } from '@stateflow/http-contract';
import type { NodeStep } from './read-paths.js';

/** Longest string shown whole in a preview, in UTF-16 code units; longer ones are cut. */
export const PREVIEW_CHARS = 200;


/** Largest value sent whole, in characters of JSON; larger ones are sent as a summary. */
export const VALUE_CHARS = 4096;

/** A value as a page shows it: absent, whole when small, else its summary. */
export function shownValue(value: JsonValue | undefined): ShownValue {
  if (value === undefined) return { absent: true };
  return JSON.stringify(value).length <= VALUE_CHARS ? { value } : { summary: summarize(value) };
}

/** Summary of a value for a row. */
export function summarize(value: JsonValue): ValueSummary {
  const kind = kindOf(value) as ValueSummary['kind'];
  if (isJsonObject(value)) return { kind, size: Object.keys(value).length };
  if (Array.isArray(value)) return { kind, length: value.length };
  if (typeof value === 'string') {
    return value.length > PREVIEW_CHARS
      ? { kind, length: value.length, preview: value.slice(0, PREVIEW_CHARS), truncated: true }
      : { kind, length: value.length, preview: value };
  }
  return { kind, preview: value as number | boolean };
}

/**
 * The steps of `pointer` in `state` (array items by canonical index, object members by own key).
 * @throws PATH_NOT_FOUND `{ path, at }` when the pointer leaves the value.
 */
export function resolvePointer(state: JsonObject, pointer: string): { steps: NodeStep[]; value: JsonValue } {
  let value: JsonValue = state;
  const steps: NodeStep[] = [];
  let at = '';
  for (const segment of pointerSegments(pointer)) {
    at += `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const next = childOf(value, segment);
    if (next === undefined) {
      throw new StateflowError('PATH_NOT_FOUND', `Nothing at ${at} in this state (it may not exist at this revision)`, { path: pointer, at });
    }
    steps.push(next.step);
    value = next.value;
  }
  return { steps, value };
}

function childOf(value: JsonValue | undefined, segment: string): { step: NodeStep; value: JsonValue } | undefined {
  if (Array.isArray(value)) {
    if (!/^(0|[1-9]\d*)$/.test(segment)) return undefined;
    const index = Number(segment);
    return index < value.length ? { step: { kind: 'index', index }, value: value[index] as JsonValue } : undefined;
  }
  if (isJsonObject(value) && hasOwn(value, segment)) return { step: { kind: 'key', key: segment }, value: value[segment] as JsonValue };
  return undefined;
}

/** The value at `steps` below `value`, or `undefined`. */
export function valueAt(value: JsonValue | undefined, steps: readonly NodeStep[]): JsonValue | undefined {
  let here = value;
  for (const step of steps) {
    if (step.kind === 'index') here = Array.isArray(here) ? here[step.index] : undefined;
    else here = isJsonObject(here) && hasOwn(here, step.key) ? here[step.key] : undefined;
    if (here === undefined) return undefined;
  }
  return here;
}

/** How children are decorated: change marks, paths, scopes. */
export interface NodeDecoration {
  /**
   * Which children the transition changed: the net patch of the transition and the state before
   * it (a stream revision), or only the state before it (effective view: compared value by
   * value); `null` when unknown.
   */
  change: { patch: JsonObject; before: JsonObject } | { before: JsonObject } | null;
  /** The `read_state` path of a child, or `null`. */
  path(steps: readonly NodeStep[]): string | null;
  /** Effective view: the scope layers (low → high) the value was overlaid from. */
  layers?: Array<{ scope: Scope; state: JsonObject }>;
}

/**
 * One page of the level at `pointer` of `state`.
 * @param page `offset` (≥ 0) and `limit` (1 … `NODE_PAGE.max`) of children.
 * @throws PATH_NOT_FOUND when the pointer leaves the state.
 */
export function nodePage(state: JsonObject, pointer: string, page: { offset: number; limit: number }, decoration: NodeDecoration): NodePage {
  const { steps, value } = resolvePointer(state, pointer);
  const entries: Array<[string, NodeStep, JsonValue]> = isJsonObject(value)
    ? Object.keys(value).map((key) => [key, { kind: 'key', key }, value[key] as JsonValue])
    : Array.isArray(value)
      ? value.map((item, index) => [`[${index}]`, { kind: 'index', index }, item as JsonValue])
      : [];
  const changedChild = changeMarks(decoration.change, steps, value);
  const children = entries.slice(page.offset, page.offset + page.limit).map(([label, step, child]): NodeChild => {
    const childSteps = [...steps, step];
    const node: NodeChild = {
      label,
      pointer: `${pointer}/${step.kind === 'index' ? String(step.index) : step.key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      ...summarize(child),
      changed: changedChild.of(label, step, child),
      path: decoration.path(childSteps),
    };
    if (decoration.layers !== undefined) Object.assign(node, scopeMarks(decoration.layers, childSteps, child));
    return node;
  });
  return { pointer, ...summarize(value), changed: changedChild.self, children, offset: page.offset, total: entries.length };
}

interface ChangeMarks {
  self: boolean | null;
  of(label: string, step: NodeStep, after: JsonValue): boolean;
}

/**
 * Change marks from the narrowed net patch (core `narrowPatch`): where the patch still has
 * structure at this level, a child changed exactly when the patch names it; where it wrote the
 * level whole (or deleted it), a child changed when its value differs from the one before.
 */
function changeMarks(change: NodeDecoration['change'], steps: NodeStep[], after: JsonValue): ChangeMarks {
  if (change === null) return { self: null, of: () => false };
  if (!('patch' in change)) {
    const before = valueAt(change.before, steps);
    return {
      self: before === undefined || !jsonEqual(before, after),
      of: (_label, step, child) => {
        const old = valueAt(before, [step]);
        return old === undefined || !jsonEqual(old, child);
      },
    };
  }
  const beforeHere = valueAt(change.before, steps);
  const narrowed = narrowPatch(change.patch, steps, beforeHere);
  const self = !(isJsonObject(narrowed) && Object.keys(narrowed).length === 0);
  if (!self) return { self, of: () => false };
  const structured = isJsonObject(narrowed) && (isJsonObject(beforeHere) || Array.isArray(beforeHere)) && kindOf(beforeHere) === kindOf(after);
  return {
    self,
    of: (label, step, child) => {
      if (structured) return hasOwn(narrowed as JsonObject, step.kind === 'index' ? label : step.key);
      const old = valueAt(beforeHere, [step]);
      return old === undefined || !jsonEqual(old, child);
    },
  };
}

/** The scope a child's value comes from, and the lower values it hides. */
function scopeMarks(layers: Array<{ scope: Scope; state: JsonObject }>, steps: NodeStep[], value: JsonValue): Pick<NodeChild, 'scope' | 'shadows' | 'merges'> {
  const holders = layers.map((layer) => ({ scope: layer.scope, value: valueAt(layer.state, steps) })).filter((h) => h.value !== undefined);
  const top = holders[holders.length - 1];
  if (top === undefined) return {};
  if (!isJsonObject(value)) return { scope: top.scope, shadows: holders.slice(0, -1).map((h) => ({ scope: h.scope, ...summarize(h.value as JsonValue) })) };
  // Objects merge from the nearest non-object below the top upwards; what lies under that is hidden.
  let base = holders.length - 1;
  while (base > 0 && isJsonObject(holders[base - 1]?.value)) base--;
  const merged = holders.slice(base).map((h) => h.scope);
  const shadows = holders.slice(0, base).map((h) => ({ scope: h.scope, ...summarize(h.value as JsonValue) }));
  return { scope: top.scope, shadows, ...(merged.length > 1 ? { merges: merged } : {}) };
}
