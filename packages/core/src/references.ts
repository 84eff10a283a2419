/**
 * Semantic references (seed "Semantic references"; DESIGN.md "Paths").
 *
 * A structured reference is a JSON object with exactly one own member, `$ref` (or, for the
 * dangling-reference reverse lookup only, `$path`), whose value is a string. Objects with more
 * members are ordinary data — a stored JSON Schema with `{"$ref": "#/x", "type": ...}` is not a
 * Stateflow reference. Textual `$path` mentions inside prose are never parsed here.
 *
 * Sole-owner anchoring turns an eligible flat current `{"$ref":"lazy.plan"}` into the canonical
 * `{"$ref":"cwd.lazy.plan"}` when exactly one owner is selected; relative display reverses it for
 * model-facing reads. Neither scans prose, validates targets, nor infers authority.
 */
import { isJsonObject } from './json.js';
import type { JsonObject, JsonValue } from './json.js';
import { parsePath } from './path-grammar.js';
import type { ParsedPath } from './path-grammar.js';
import { isPlane } from './planes.js';
import { defineData } from './internal/define-data.js';

/** A current owner scope: the roots that own stored state. */
export type OwnerScope = 'global' | 'cwd' | 'session';

/** The two structured reference forms. `$path` is only used by the dangling-reference lookup. */
export type RefKind = '$ref' | '$path';

/** A structured reference found inside a value. */
export interface FoundRef {
  /** `$ref` or `$path`. */
  kind: RefKind;
  /** The reference's path text, verbatim. */
  text: string;
  /**
   * Location of the reference object inside the searched value: object keys (strings) and
   * array indices (numbers), outermost first. `[]` when the value itself is the reference.
   */
  at: (string | number)[];
}

/**
 * The reference carried by `value` when it is a structured reference object (exactly one own
 * member `$ref` or `$path` holding a string), else `null`.
 */
export function structuredRef(value: JsonValue | undefined): { kind: RefKind; text: string } | null {
  if (!isJsonObject(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1) return null;
  const kind = keys[0];
  if (kind !== '$ref' && kind !== '$path') return null;
  const text = value[kind];
  return typeof text === 'string' ? { kind, text } : null;
}

/**
 * Every structured reference inside `value`, depth-first in document order (object members in
 * their own key order, array elements by index). A reference object is not searched further.
 *
 * @param kinds which forms to report; default both.
 */
export function findStructuredRefs(value: JsonValue, kinds: readonly RefKind[] = ['$ref', '$path']): FoundRef[] {
  const found: FoundRef[] = [];
  const walk = (node: JsonValue, at: (string | number)[]): void => {
    const ref = structuredRef(node);
    if (ref !== null) {
      if (kinds.includes(ref.kind)) found.push({ ...ref, at });
      return;
    }
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...at, i]));
    else if (isJsonObject(node)) for (const key of Object.keys(node)) walk(node[key] as JsonValue, [...at, key]);
  };
  walk(value, []);
  return found;
}

/** `parsePath(text)`, or `null` when the text is not a valid `read_state` path. */
export function parseRefPath(text: string): ParsedPath | null {
  try {
    return parsePath(text);
  } catch {
    return null;
  }
}

/** True when a parsed path starts (after its root) with a key naming a built-in plane. */
function startsWithPlane(parsed: ParsedPath): boolean {
  const first = parsed.steps[0];
  return first !== undefined && first.kind === 'key' && isPlane(first.key);
}

/**
 * True when `text` is a flat current semantic path eligible for sole-owner anchoring: it parses,
 * has no root and no temporal selector, and its first step names a plane (`lazy.plan`,
 * `tactics.next`). Scoped, `effective`, historical, resource and unparsable texts are not.
 */
export function isAnchorableRef(text: string): boolean {
  const parsed = parseRefPath(text);
  return parsed !== null && parsed.root === null && parsed.at === null && parsed.tag === null && startsWithPlane(parsed);
}

/** Copy-on-write map over a JSON value: `fn` returns a replacement or `undefined` to recurse. */
function mapRefs(value: JsonValue, fn: (node: JsonValue) => JsonValue | undefined): JsonValue {
  const replaced = fn(value);
  if (replaced !== undefined) return replaced;
  if (Array.isArray(value)) {
    let out: JsonValue[] | null = null;
    value.forEach((item, i) => {
      const next = mapRefs(item, fn);
      if (next !== item) (out ??= value.slice())[i] = next;
    });
    return out ?? value;
  }
  if (isJsonObject(value)) {
    let out: JsonObject | null = null;
    for (const key of Object.keys(value)) {
      const item = value[key] as JsonValue;
      const next = mapRefs(item, fn);
      if (next !== item) {
        out ??= copyObject(value);
        defineData(out, key, next);
      }
    }
    return out ?? value;
  }
  return value;
}

/** Own-key copy that treats `__proto__` as data. */
function copyObject(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) defineData(out, key, value[key] as JsonValue);
  return out;
}

/**
 * Sole-owner anchoring (seed "Semantic references"): every eligible flat structured
 * `{"$ref": "<plane>…"}` inside `value` becomes `{"$ref": "<owner>.<plane>…"}`. Everything else —
 * `$path` objects, scoped/`effective`/historical refs, refs with extra members, prose — keeps its
 * identity. Unchanged subtrees are returned as is (structural sharing); the input is not mutated.
 * Works on patches too (`null` members and `"[N]"` keys are ordinary data here).
 */
export function anchorRefs<T extends JsonValue>(value: T, owner: OwnerScope): T {
  return mapRefs(value, (node) => {
    const ref = structuredRef(node);
    if (ref === null) return undefined;
    return ref.kind === '$ref' && isAnchorableRef(ref.text) ? { $ref: `${owner}.${ref.text}` } : node;
  }) as T;
}

/**
 * Relative display for a sole selected owner (the inverse of {@link anchorRefs}): every
 * structured `{"$ref": "<owner>.<plane>…"}` whose root is exactly `owner`, current (no `[N]`),
 * becomes `{"$ref": "<plane>…"}`. Other owners, `effective`, historical refs and prose keep
 * their identity.
 */
export function relativizeRefs<T extends JsonValue>(value: T, owner: OwnerScope): T {
  const prefix = `${owner}.`;
  return mapRefs(value, (node) => {
    const ref = structuredRef(node);
    if (ref === null) return undefined;
    if (ref.kind !== '$ref' || !ref.text.startsWith(prefix)) return node;
    const parsed = parseRefPath(ref.text);
    const relative = parsed !== null && parsed.root === owner && parsed.at === null && parsed.tag === null && startsWithPlane(parsed);
    return relative ? { $ref: ref.text.slice(prefix.length) } : node;
  }) as T;
}
