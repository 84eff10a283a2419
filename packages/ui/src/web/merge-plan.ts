/**
 * What the merge preview computes in the page, pure: the rows of the patch a merge would publish
 * (each leaf of the merge patch with `into`'s value before it), the JSON pointer lookup they
 * need, and the `resolve` map of the choices made per conflict — or what is still missing.
 */
import type { JsonObject, JsonValue, ShownValue } from './types.js';

/** One leaf of the patch: the value at `pointer` in `into` now (`before`) and after the merge. */
export interface PatchRow {
  pointer: string;
  change: 'added' | 'removed' | 'changed';
  before: ShownValue;
  after: ShownValue;
}

/** A choice for one conflict: a side, or a JSON value typed by the user (`text`; `null` deletes). */
export type Choice = { side: 'ours' | 'theirs' } | { text: string };

/** A resolution as `POST /v1/store/merge` takes it. */
export type Resolution = 'ours' | 'theirs' | { value: JsonValue | null };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
const unescape = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');
const shown = (v: JsonValue | undefined): ShownValue => (v === undefined ? { absent: true } : { value: v });

/** The value at RFC 6901 `pointer` in `doc`, or `undefined` where there is none. */
export function valueAt(doc: JsonValue | undefined, pointer: string): JsonValue | undefined {
  if (pointer === '') return doc;
  let at: JsonValue | undefined = doc;
  for (const token of pointer.slice(1).split('/').map(unescape)) {
    if (Array.isArray(at)) at = /^(0|[1-9]\d*)$/.test(token) ? at[Number(token)] : undefined;
    else if (isObject(at)) at = Object.hasOwn(at, token) ? at[token] : undefined;
    else return undefined;
  }
  return at;
}

/**
 * The leaves of merge patch `patch` (RFC 7396: objects recurse, `null` deletes, anything else —
 * an array, a scalar, `{}` — is set whole) against `state`, in patch order; a leaf that changes
 * nothing (deleting an absent key, `{}` on an object) is left out.
 */
export function patchRows(patch: JsonObject, state: JsonObject): PatchRow[] {
  const rows: PatchRow[] = [];
  const walk = (part: JsonObject, prefix: string) => {
    for (const [key, value] of Object.entries(part)) {
      const pointer = `${prefix}/${escape(key)}`;
      const before = valueAt(state, pointer);
      if (isObject(value) && Object.keys(value).length > 0) walk(value, pointer);
      else if (value === null ? before !== undefined : !(isObject(value) && isObject(before))) {
        // Left out: deleting what is absent, and `{}` on an object (it changes nothing).
        const change = value === null ? 'removed' : before === undefined ? 'added' : 'changed';
        rows.push({ pointer, change, before: shown(before), after: value === null ? { absent: true } : { value } });
      }
    }
  };
  walk(patch, '');
  return rows;
}

/** The `resolve` map of `choices` (by conflict path) for every path of `paths`, or the problems: a path without a choice, a value that is not JSON. */
export function resolutions(paths: readonly string[], choices: Readonly<Record<string, Choice>>): { resolve: Record<string, Resolution> } | { problems: string[] } {
  const resolve: Record<string, Resolution> = {};
  const problems: string[] = [];
  for (const path of paths) {
    const choice = choices[path];
    if (choice === undefined) problems.push(`${path}: choose ours, theirs or a value`);
    else if ('side' in choice) resolve[path] = choice.side;
    else {
      try {
        resolve[path] = { value: JSON.parse(choice.text) as JsonValue | null };
      } catch {
        problems.push(`${path}: the value is not JSON (write "text" with quotes, null to delete)`);
      }
    }
  }
  return problems.length > 0 ? { problems } : { resolve };
}
