import type { JsonObject, JsonValue } from '../json.js';
import { isJsonObject } from '../json.js';
import { classifyKey } from './index-key.js';
import { patchInvalid } from '../patch-error.js';
import { assertWritableValue, patchObjectShape } from './patch-shape.js';
import { childPointer } from '../json-pointer.js';
import type { ArrayNode, Node, ObjectNode } from './tree.js';
import { elementOf, isArrayNode, isObjectNode, lengthOf, memberOf, nodeKind, objectSize, updateArray, updateObject } from './tree.js';

const EMPTY: JsonObject = Object.freeze({});

/** How one application of a patch walks: see {@link mergeValue}. */
export interface MergeOptions {
  /** Refuse an object patch that would create or replace a value with `{}` (PatchOptions.emptyObjects 'refuse'). */
  refuseEmptyObjects?: boolean;
}

/**
 * The one walker that defines patch semantics (DESIGN.md "Patches"): applies the patch value
 * `patch` (already a frozen JSON snapshot) to the node `target` (`undefined` = absent) of a
 * state tree (`tree.ts`). Nothing is mutated: unchanged subtrees are returned by reference,
 * changed containers are new nodes (plain frozen copies of small containers, tree containers
 * over large ones) whose new leaves are the snapshot's frozen values, so a write costs what it
 * changes. Because it is pure, a throw half-way produces nothing, so it doubles as the complete
 * validator.
 *
 * - scalar or array: replaces (arrays are checked by {@link assertWritableValue});
 * - ordinary object patch: merges into an object target, or into `{}` when the target is absent
 *   or not an object (RFC 7396); `null` members delete keys (absent keys: no-op);
 * - index patch (`"[N]"` keys only): addresses existing elements of an array target.
 *
 * With `options.refuseEmptyObjects`, an ordinary object patch that lands on an absent or
 * non-object value and leaves an empty object there (`{}`, or only deletions) is refused: the
 * `patch` projection would read that change as `{}`, "no change".
 *
 * @throws StateflowError `PATCH_INVALID` (any reason except `not-object`, `empty`, `not-json`).
 */
export function mergeValue(target: Node | undefined, patch: JsonValue, at: string, options: MergeOptions = {}): Node {
  if (!isJsonObject(patch)) {
    assertWritableValue(patch, at);
    return patch;
  }
  if (patchObjectShape(patch, at) === 'index') {
    if (!isArrayNode(target)) {
      const kind = target === undefined ? undefined : nodeKind(target);
      const what = kind === undefined ? 'absent' : `${kind === 'object' ? 'an' : 'a'} ${kind}, not an array`;
      throw patchInvalid(`"[N]" selectors address elements of an existing array, but the value here is ${what}`, {
        reason: 'index-on-non-array',
        at,
      });
    }
    return mergeArray(target, patch, at, options);
  }
  if (isObjectNode(target)) return mergeObject(target, patch, at, options);
  const created = mergeObject(EMPTY, patch, at, options);
  if (options.refuseEmptyObjects === true && objectSize(created) === 0) {
    const what = target === undefined ? 'creates' : `replaces ${nodeKind(target) === 'array' ? 'an array' : `a ${nodeKind(target)}`} with`;
    throw patchInvalid(
      `this object patch ${what} an empty object, which the patch projection could not tell from "no change"; ` +
        'write an empty object only inside an array, or give the object a member',
      { reason: 'empty-object', at },
    );
  }
  return created;
}

function mergeObject(target: ObjectNode, patch: JsonObject, at: string, options: MergeOptions): ObjectNode {
  const changes: Array<[string, Node | undefined]> = [];
  for (const key of Object.keys(patch)) {
    const member = patch[key] as JsonValue;
    const current = memberOf(target, key);
    if (member === null) {
      if (current !== undefined) changes.push([key, undefined]);
      continue;
    }
    const next = mergeValue(current, member, childPointer(at, key), options);
    if (next !== current) changes.push([key, next]);
  }
  return changes.length === 0 ? target : updateObject(target, changes);
}

function mergeArray(target: ArrayNode, patch: JsonObject, at: string, options: MergeOptions): ArrayNode {
  const length = lengthOf(target);
  const changes: Array<[number, Node]> = [];
  for (const key of Object.keys(patch)) {
    const selector = classifyKey(key);
    if (selector.kind !== 'index') throw new Error(`unreachable: "${key}" in an index patch`);
    const elementAt = childPointer(at, key);
    if (selector.index >= length) {
      throw patchInvalid(
        `"${key}" addresses no element: the array has length ${length}` +
          (length === 0 ? '' : ` (valid selectors "[0]".."[${length - 1}]")`) +
          '; to insert or remove elements, replace the whole array',
        { reason: 'index-out-of-range', at: elementAt, index: key, length },
      );
    }
    const current = elementOf(target, selector.index);
    const next = mergeValue(current, patch[key] as JsonValue, elementAt, options);
    if (next !== current) changes.push([selector.index, next]);
  }
  return changes.length === 0 ? target : updateArray(target, changes);
}
