/**
 * Load-time detection of author schemas that refer to themselves without descending into the
 * value (`{"$ref": "#"}`, a `$ref` cycle through `allOf`/`anyOf`/`oneOf`/`not`/`if`…): validating
 * any value against one recurses until the stack overflows, so such a schema can never check
 * anything. Recursion through `properties`, `items` and the like is fine: each step consumes a
 * level of the value, which is finite.
 */
import { childPointer, isJsonObject, pointerSegments } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';

/** Keywords whose subschemas apply to the same value as the schema holding them. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_SCHEMAS = ['not', 'if', 'then', 'else'];
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'];

/**
 * The JSON pointer (into `schema`) of a `$ref` that closes a cycle of subschemas applied to the
 * same value, or `null` when there is none. Only local references (`#`, `#/…`) are followed;
 * others cannot form a cycle inside one schema that ajv would resolve without them.
 */
export function selfReferenceWithoutDescent(schema: JsonObject): string | null {
  const nodes = new Map<string, JsonObject>();
  collect(schema, '', nodes);
  const state = new Map<string, 'open' | 'done'>();
  for (const start of nodes.keys()) {
    if (state.has(start)) continue;
    // Iterative depth-first search: a stack of [node, its in-place edges, next edge].
    const stack: Array<{ at: string; edges: Array<{ to: string; via: string }>; next: number }> = [{ at: start, edges: edgesOf(nodes, start), next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const edge = top.edges[top.next++];
      if (edge === undefined) {
        state.set(top.at, 'done');
        stack.pop();
        continue;
      }
      const seen = state.get(edge.to);
      if (seen === 'open') return edge.via;
      if (seen === 'done' || !nodes.has(edge.to)) continue;
      state.set(edge.to, 'open');
      stack.push({ at: edge.to, edges: edgesOf(nodes, edge.to), next: 0 });
    }
  }
  return null;
}

/** Every object in the schema tree, by JSON pointer (each one may be a subschema). */
function collect(value: JsonValue, at: string, into: Map<string, JsonObject>): void {
  const pending: Array<[JsonValue, string]> = [[value, at]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [here, pointer] = item;
    if (Array.isArray(here)) here.forEach((v, i) => pending.push([v, childPointer(pointer, String(i))]));
    else if (isJsonObject(here)) {
      into.set(pointer, here);
      for (const key of Object.keys(here)) pending.push([here[key] as JsonValue, childPointer(pointer, key)]);
    }
  }
}

/** The subschemas applied to the same value as the one at `at`; `via` is where the edge is written. */
function edgesOf(nodes: Map<string, JsonObject>, at: string): Array<{ to: string; via: string }> {
  const schema = nodes.get(at) as JsonObject;
  const edges: Array<{ to: string; via: string }> = [];
  const add = (to: string, via: string) => edges.push({ to, via });
  for (const key of IN_PLACE_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((_, i) => add(childPointer(childPointer(at, key), String(i)), childPointer(at, key)));
  }
  for (const key of IN_PLACE_SCHEMAS) if (isJsonObject(schema[key])) add(childPointer(at, key), childPointer(at, key));
  for (const key of IN_PLACE_MAPS) {
    const map = schema[key];
    if (isJsonObject(map)) for (const name of Object.keys(map)) if (isJsonObject(map[name])) add(childPointer(childPointer(at, key), name), childPointer(at, key));
  }
  const ref = schema.$ref;
  if (typeof ref === 'string' && (ref === '#' || ref.startsWith('#/'))) {
    const target = localPointer(ref);
    if (target !== null) add(target, childPointer(at, '$ref'));
  }
  return edges;
}

/** `#/definitions/a%20b` → the JSON pointer `/definitions/a b` (normalised through its segments). */
function localPointer(ref: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(ref.slice(1));
  } catch {
    return null;
  }
  return pointerSegments(decoded).reduce((pointer, segment) => childPointer(pointer, segment), '');
}
