import type { JsonKind, JsonObject, JsonValue } from './json.js';
import { checkPatch } from './internal/checked-patch.js';
import type { PatchPathStep } from './narrow-patch.js';
import { netOf } from './net-patch.js';
import type { PatchOptions } from './patch-options.js';
import { refusesEmptyObjects } from './patch-options.js';
import type { LargeObject, Node, ObjectNode } from './internal/tree.js';
import { elementOf, isArrayNode, isObjectNode, lengthOf, memberOf, nodeKind, outlineOf, plainOf, stateNode } from './internal/tree.js';

export type { LargeObject } from './internal/tree.js';

/** What {@link StateTree.change} found: the net patch and the tree it leaves. */
export interface TreeChange {
  /** The net patch ({@link netPatch}): deeply frozen, `{}` when nothing changes. */
  net: JsonObject;
  /** The state after the patch: the same tree when nothing changes. */
  tree: StateTree;
}

/**
 * A state held so that a write costs what it changes (README "State trees"): an immutable
 * value, like the plain frozen state it stands for, whose large containers are a frozen base plus
 * a persistent delta of the members changed since. Writes ({@link StateTree.change},
 * {@link StateTree.apply}) cost what the patch names times the depth, never a copy of a large
 * object; the plain state ({@link StateTree.state}) is built on demand, once per tree, from the
 * containers that changed; {@link StateTree.valueAt} reads one path without building the rest.
 * Semantics, validation and errors are those of {@link applyPatch} and {@link netPatch}; key
 * order is the one the same patches give a plain object.
 *
 * @example
 * ```ts
 * let tree = StateTree.of({ lazy: { memory: bigObject } });
 * const { net, tree: next } = tree.change({ lazy: { memory: { k7: 'new' } } });   // O(patch × depth)
 * next.valueAt([{ kind: 'key', key: 'lazy' }, { kind: 'key', key: 'memory' }, { kind: 'key', key: 'k7' }]); // 'new'
 * next.state();   // plain, deeply frozen: equals applyPatch(state, patch)
 * ```
 */
export class StateTree {
  readonly #root: ObjectNode;

  private constructor(root: ObjectNode) {
    this.#root = root;
  }

  /** A tree over `state` in O(1) (an unfrozen `state` is deeply frozen in place first, as by {@link applyPatch}). */
  static of(state: JsonObject): StateTree {
    return new StateTree(stateNode(state));
  }

  /**
   * The state as plain, deeply frozen JSON, equal (key order included) to what folding
   * {@link applyPatch} over the same patches gives. Built on the first call — each container
   * changed since the tree's plain origin once, shared containers as they are — and memoised.
   */
  state(): JsonObject {
    return plainOf(this.#root) as JsonObject;
  }

  /**
   * The plain, deeply frozen value at `path` (key and index steps, as `narrowPatch` takes them),
   * or `undefined` when the path does not resolve (a missing member, an index past the end, a
   * step into a value of another kind). Costs the path's length plus building the value found.
   */
  valueAt(path: readonly PatchPathStep[]): JsonValue | undefined {
    const node = this.#nodeAt(path);
    return node === undefined ? undefined : plainOf(node);
  }

  /**
   * The state with its large objects left out: `root` is the plain, deeply frozen state with
   * every object of more than `minMembers` members that is not inside another such object or an
   * array replaced by `{}` (the state itself never is: a root of many members is kept whole); `large` names those objects (key paths from the root, member counts)
   * in key order. Costs the members of the objects kept, not the large objects' members — how a
   * store writes a large state in pages (`@stateflow/store`, "Paged checkpoints").
   */
  outline(minMembers: number): { root: JsonObject; large: LargeObject[] } {
    const large: LargeObject[] = [];
    const root = outlineOf(this.#root, minMembers, [], large) as JsonObject;
    return { root, large };
  }

  /**
   * The plain, deeply frozen values of members `keys` of the object at `path` (`undefined` for a
   * member it does not have, or for every key when `path` is not an object): {@link valueAt} of
   * each member, walking the path once.
   */
  membersAt(path: readonly PatchPathStep[], keys: readonly string[]): (JsonValue | undefined)[] {
    const node = this.#nodeAt(path);
    if (!isObjectNode(node)) return keys.map(() => undefined);
    return keys.map((key) => {
      const member = memberOf(node, key);
      return member === undefined ? undefined : plainOf(member);
    });
  }

  /** The JSON kind of the value at `path`, or `undefined` when the path does not resolve; builds nothing. */
  kindAt(path: readonly PatchPathStep[]): JsonKind | undefined {
    const node = this.#nodeAt(path);
    return node === undefined ? undefined : nodeKind(node);
  }

  /**
   * Validate `patch` against this state, and give its net patch and the tree it leaves: exactly
   * {@link netPatch} and {@link applyPatch} of the same patch, at the cost of what it names.
   * @throws StateflowError `PATCH_INVALID` as {@link validatePatch}; nothing is produced then.
   */
  change(patch: unknown, options?: PatchOptions): TreeChange {
    const checked = checkPatch(this.#root, patch, { refuseEmptyObjects: refusesEmptyObjects(options) });
    const net = netOf(this.#root, checked.patch);
    return { net, tree: Object.keys(net).length === 0 ? this : new StateTree(checked.result) };
  }

  /**
   * The tree after `patch`, as {@link applyPatch}; `frozenPatch`: `patch` is already deeply frozen
   * plain JSON (a stored patch), so no defensive copy is taken (see `PatchSeriesOptions`).
   * @throws StateflowError `PATCH_INVALID` as {@link validatePatch}
   */
  apply(patch: JsonObject, options: PatchOptions & { frozenPatch?: boolean } = {}): StateTree {
    const checked = checkPatch(this.#root, patch, { refuseEmptyObjects: refusesEmptyObjects(options), frozen: options.frozenPatch === true });
    return checked.result === this.#root ? this : new StateTree(checked.result);
  }

  #nodeAt(path: readonly PatchPathStep[]): Node | undefined {
    let node: Node | undefined = this.#root;
    for (const step of path) {
      if (node === undefined) return undefined;
      if (step.kind === 'key') node = isObjectNode(node) ? memberOf(node, step.key) : undefined;
      else node = isArrayNode(node) && step.index < lengthOf(node) ? elementOf(node, step.index) : undefined;
    }
    return node;
  }
}
