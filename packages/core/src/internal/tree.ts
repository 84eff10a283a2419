/**
 * How a state is held so that a write costs what it changes (README "State trees").
 *
 * A node is a plain, deeply frozen JSON value or a tree container: a {@link TreeObject} or a
 * {@link TreeArray}, which is a frozen plain `base` plus a persistent `delta` (immutable.js) of
 * the members changed since. A write into a plain container copies it (as every write did
 * before) only while that is cheap: the container has at most {@link PLAIN_LIMIT} members, or
 * the write itself names a quarter of them or more; otherwise — and whenever the new member is a
 * tree container itself — the result is a tree container, so a write costs O(log of the delta)
 * per level instead of a copy of every member. Small states never leave the plain form.
 *
 * Key order is JavaScript's, as a plain object built by the same writes would have it: keys that
 * are array indices first, ascending (the engine orders them whenever an object is built), then
 * the others in the order they were added; a changed key keeps its place, a deleted and re-added
 * key moves to the end. A tree object keeps that by its delta: a change of a key the base has,
 * never deleted since, stays at the base's place; any other key is appended, in the delta's own
 * (insertion) order, which immutable.js's `OrderedMap` keeps, a key deleted and set again moving
 * to its end.
 *
 * Nothing is ever mutated but one memo: {@link plainOf} builds a tree container's plain form
 * once and takes it as the container's new base with an empty delta — the same value, so every
 * version sharing the container stays what it was.
 */
import { freeze } from 'immer';
import { Map as ImmutableMap, OrderedMap } from 'immutable';
import type { JsonArray, JsonKind, JsonObject, JsonValue } from '../json.js';
import { hasOwn, isJsonObject, jsonEqual, kindOf } from '../json.js';
import { defineData } from './define-data.js';

/** Members a plain container may have and still be copied on every write into it. */
export const PLAIN_LIMIT = 64;

/** A member of a tree object's delta: its value, and whether it sits after the base's keys. */
interface Member {
  readonly value: Node;
  readonly appended: boolean;
}
/** A delta entry: the member, or `null` for a key of the base deleted since. */
type Change = Member | null;

const NO_CHANGES: OrderedMap<string, Change> = OrderedMap();
const NO_ELEMENTS: ImmutableMap<number, Node> = ImmutableMap();

/** An object as a frozen plain base and the members changed since (see the module header). */
export class TreeObject {
  constructor(
    public base: JsonObject,
    public delta: OrderedMap<string, Change>,
    /** Own members of the object (the base's, as changed by the delta). */
    readonly size: number,
  ) {}
}

/** An array as a frozen plain base and the elements changed since (its length never changes: patches replace arrays whole or address existing elements). */
export class TreeArray {
  constructor(
    public base: JsonArray,
    public delta: ImmutableMap<number, Node>,
  ) {}
}

/** A state's value: plain frozen JSON or a tree container. */
export type Node = JsonValue | TreeObject | TreeArray;
/** A node that is an object. */
export type ObjectNode = JsonObject | TreeObject;
/** A node that is an array. */
export type ArrayNode = JsonArray | TreeArray;

/** Member counts of large plain objects, computed once per object (an `Object.keys` of a large object is O(n)). */
const sizes = new WeakMap<JsonObject, number>();

function plainSize(object: JsonObject): number {
  let size = sizes.get(object);
  if (size === undefined) {
    size = Object.keys(object).length;
    if (size > PLAIN_LIMIT) sizes.set(object, size);
  }
  return size;
}

/**
 * A caller's state as a node: deeply frozen in place when it is not yet (immer's `freeze`, which
 * stops at frozen subtrees, so a frozen state costs nothing), as every state handed out is.
 */
export function stateNode(state: JsonObject): ObjectNode {
  return freeze(state, true);
}

/** Whether `node` is plain JSON (no tree container at its top). */
export function isPlain(node: Node): node is JsonValue {
  return !(node instanceof TreeObject) && !(node instanceof TreeArray);
}

export function isObjectNode(node: Node | undefined): node is ObjectNode {
  return node instanceof TreeObject || (node !== undefined && !(node instanceof TreeArray) && isJsonObject(node));
}

export function isArrayNode(node: Node | undefined): node is ArrayNode {
  return node instanceof TreeArray || Array.isArray(node);
}

/** The JSON kind of a node. */
export function nodeKind(node: Node): JsonKind {
  if (node instanceof TreeObject) return 'object';
  if (node instanceof TreeArray) return 'array';
  return kindOf(node);
}

/** Own members of an object node. */
export function objectSize(node: ObjectNode): number {
  return node instanceof TreeObject ? node.size : plainSize(node);
}

/** The own member `key` of an object node, or `undefined` (inherited members are never data). */
export function memberOf(node: ObjectNode, key: string): Node | undefined {
  if (!(node instanceof TreeObject)) return hasOwn(node, key) ? node[key] : undefined;
  const change = node.delta.get(key);
  if (change !== undefined) return change === null ? undefined : change.value;
  return hasOwn(node.base, key) ? node.base[key] : undefined;
}

export function lengthOf(node: ArrayNode): number {
  return node instanceof TreeArray ? node.base.length : node.length;
}

/** Element `index` (< length) of an array node. */
export function elementOf(node: ArrayNode, index: number): Node {
  if (!(node instanceof TreeArray)) return node[index] as JsonValue;
  return node.delta.get(index) ?? (node.base[index] as JsonValue);
}

/** Whether a node equals a plain value as JSON (object key order ignored). */
export function nodeEquals(node: Node, value: JsonValue): boolean {
  if (isPlain(node)) return jsonEqual(node, value);
  // A tree object is compared member by member only with an object (never done: patches replace with scalars and arrays).
  return jsonEqual(plainOf(node), value);
}

/**
 * An object node with `changes` applied in order (`undefined` deletes the key). A plain object
 * is copied when that is cheap (module header), else it becomes a tree object.
 */
export function updateObject(target: ObjectNode, changes: ReadonlyArray<readonly [string, Node | undefined]>): ObjectNode {
  if (!(target instanceof TreeObject)) {
    const size = plainSize(target);
    if ((size <= PLAIN_LIMIT || size <= 4 * changes.length) && changes.every(([, value]) => value === undefined || isPlain(value))) {
      return copyWith(target, changes);
    }
    target = new TreeObject(target, NO_CHANGES, size);
  }
  let { delta, size } = target;
  const base = target.base;
  for (const [key, value] of changes) {
    const change = delta.get(key);
    const inBase = hasOwn(base, key);
    if (value === undefined) {
      if (change === undefined ? !inBase : change === null) continue;
      // A key of the base is marked deleted; a key added since leaves the delta.
      delta = inBase ? delta.set(key, null) : delta.delete(key);
      size -= 1;
    } else if (change === undefined) {
      delta = delta.set(key, { value, appended: !inBase });
      if (!inBase) size += 1;
    } else if (change === null) {
      // Deleted, now added again: it moves to the end (OrderedMap appends a key set after its deletion).
      delta = delta.delete(key).set(key, { value, appended: true });
      size += 1;
    } else {
      delta = delta.set(key, { value, appended: change.appended });
    }
  }
  const result = new TreeObject(base, delta, size);
  // Deletions and appends accumulate in the delta: fold it into a new base once it outgrows the object.
  if (delta.size > PLAIN_LIMIT && delta.size > 2 * size) plainObject(result);
  return result;
}

/** A frozen copy of a plain object with `changes` applied in order (every value plain). */
function copyWith(target: JsonObject, changes: ReadonlyArray<readonly [string, Node | undefined]>): JsonObject {
  // Spread defines properties (CreateDataProperty): a `__proto__` key stays an own data key.
  const copy: JsonObject = { ...target };
  for (const [key, value] of changes) {
    if (value === undefined) delete copy[key];
    else defineData(copy, key, value as JsonValue);
  }
  return Object.freeze(copy);
}

/** An array node with elements `changes` replaced (indices < length). */
export function updateArray(target: ArrayNode, changes: ReadonlyArray<readonly [number, Node]>): ArrayNode {
  if (!(target instanceof TreeArray)) {
    if ((target.length <= PLAIN_LIMIT || target.length <= 4 * changes.length) && changes.every(([, value]) => isPlain(value))) {
      const copy = target.slice();
      for (const [index, value] of changes) copy[index] = value as JsonValue;
      Object.freeze(copy);
      return copy;
    }
    target = new TreeArray(target, NO_ELEMENTS);
  }
  let delta = target.delta;
  for (const [index, value] of changes) delta = delta.set(index, value);
  const result = new TreeArray(target.base, delta);
  if (delta.size > PLAIN_LIMIT && delta.size > target.base.length / 2) plainArray(result);
  return result;
}

/** The plain, deeply frozen JSON value of a node (built once per tree container, then memoised). */
export function plainOf(node: Node): JsonValue {
  if (node instanceof TreeObject) return plainObject(node);
  if (node instanceof TreeArray) return plainArray(node);
  return node;
}

function plainObject(node: TreeObject): JsonObject {
  if (node.delta.size === 0) return node.base;
  const changes = new Map<string, Change>(node.delta);
  const out: JsonObject = {};
  const put = (key: string, value: JsonValue): void => {
    // Assignment is much faster than defining; only `__proto__` would reach the prototype setter.
    if (key === '__proto__') defineData(out, key, value);
    else out[key] = value;
  };
  for (const key of Object.keys(node.base)) {
    const change = changes.get(key);
    if (change === undefined) put(key, node.base[key] as JsonValue);
    else if (change !== null && !change.appended) put(key, plainOf(change.value));
  }
  for (const [key, change] of changes) if (change !== null && change.appended) put(key, plainOf(change.value));
  Object.freeze(out);
  if (node.size > PLAIN_LIMIT) sizes.set(out, node.size);
  node.base = out;
  node.delta = NO_CHANGES;
  return out;
}

function plainArray(node: TreeArray): JsonArray {
  if (node.delta.size === 0) return node.base;
  const out = node.base.slice();
  for (const [index, value] of node.delta) out[index] = plainOf(value);
  Object.freeze(out);
  node.base = out;
  node.delta = NO_ELEMENTS;
  return out;
}

/** A large object {@link outlineOf} left out of the outline: its key path from the state's root and its member count. */
export interface LargeObject {
  readonly path: readonly string[];
  readonly size: number;
}

const EMPTY_OBJECT: JsonObject = Object.freeze({});

/**
 * The plain, deeply frozen value of `node` with every object of more than `min` members (not
 * itself inside such an object or an array, and not `node` itself) replaced by `{}`, and those objects' paths in
 * `large`, in key order. Costs the members of the objects kept (a plain subtree with no large
 * object inside is returned as it is), never the large objects' members.
 */
export function outlineOf(node: Node, min: number, path: string[], large: LargeObject[]): JsonValue {
  if (isArrayNode(node)) return plainOf(node);
  if (!isObjectNode(node)) return node as JsonValue;
  const size = objectSize(node);
  // The root is never left out: a state of many members at its top is kept in the outline.
  if (size > min && path.length > 0) {
    large.push({ path: [...path], size });
    return EMPTY_OBJECT;
  }
  const members = objectMembers(node);
  const values = members.map(([key, member]) => {
    path.push(key);
    const value = outlineOf(member, min, path, large);
    path.pop();
    return value;
  });
  if (!(node instanceof TreeObject) && values.every((value, i) => value === members[i]?.[1])) return node;
  const out: JsonObject = {};
  members.forEach(([key], i) => defineData(out, key, values[i] as JsonValue));
  return Object.freeze(out);
}

/** The own members of an object node in key order (a small object's: see {@link outlineOf}). */
function objectMembers(node: ObjectNode): [string, Node][] {
  if (!(node instanceof TreeObject)) return Object.keys(node).map((key) => [key, node[key] as JsonValue]);
  const out: [string, Node][] = [];
  for (const key of Object.keys(node.base)) {
    const change = node.delta.get(key);
    if (change === undefined) out.push([key, node.base[key] as JsonValue]);
    else if (change !== null && !change.appended) out.push([key, change.value]);
  }
  for (const [key, change] of node.delta) if (change !== null && change.appended) out.push([key, change.value]);
  return out;
}
