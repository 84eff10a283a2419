/**
 * Resolution of parsed path steps over a JSON value: the `value` projection's selection
 * (seed "Path and range model", "`value`"; DESIGN.md "Paths").
 */
import { StateflowError } from './errors.js';
import { hasOwn, isJsonObject, kindOf } from './json.js';
import type { JsonObject, JsonValue } from './json.js';
import type { PathStep } from './path-grammar.js';
import { elidePath, quotePath } from './path-echo.js';
import { isPlane } from './planes.js';

/**
 * Selects the exact member, item or range that `steps` address inside `value`.
 *
 * - `.key` selects an own member of an object (inherited members such as `toString` are never
 *   data; a stored `__proto__` key is).
 * - `[i]` selects an existing item of an array: `0 <= i < length`.
 * - `[a:b]` selects items `a <= i < b` as a new array; it must fit entirely: `b <= length`
 *   (on length 10, `[0:10]` and `[10:10]` are valid; `[0:15]` and `[11:11]` fail).
 *
 * The result shares structure with `value` (nothing is copied except a range's new array);
 * `value` is never mutated.
 *
 * @param value the JSON value the steps start from (a scope or effective root for full paths).
 * @param steps steps from {@link parsePath} of `pathText`; their columns locate the failing step.
 * @param pathText the caller's path text, repeated in error details and messages (at most 200
 *   characters of it: `elidePath`).
 * @throws StateflowError `PATH_NOT_FOUND` (details `{ path, at }`, `at` = the path through the
 *   missing member) when an object has no such own member.
 * @throws StateflowError `PATH_KIND` (details `{ path, expected, actual, at }`) for a member of
 *   an array or scalar (`expected: 'object'`), or an index/range of an object or scalar
 *   (`expected: 'array'`).
 * @throws StateflowError `INDEX_OUT_OF_RANGE` (details `{ path, index, length, at }`; `index` is
 *   the number, or `"a:b"` for a range) when an index or range does not fit the array.
 */
export function resolvePath(value: JsonValue, steps: readonly PathStep[], pathText: string): JsonValue {
  let current = value;
  steps.forEach((step, n) => {
    const parent = pathText.slice(0, step.column - 1);
    const at = pathText.slice(0, stepEnd(steps, n, pathText));
    const where = parent === '' ? 'the state' : quotePath(parent);
    if (step.kind === 'key') {
      if (!isJsonObject(current)) {
        throw new StateflowError(
          'PATH_KIND',
          `Path ${quotePath(pathText)}: ${where} is ${article(kindOf(current))}, not an object, so it has no member ${quotePath(step.key)}.`,
          { path: elidePath(pathText), expected: 'object', actual: kindOf(current), at: elidePath(at) },
        );
      }
      if (!hasOwn(current, step.key)) {
        throw new StateflowError(
          'PATH_NOT_FOUND',
          `Path ${quotePath(pathText)} not found: ${where} has no member ${quotePath(step.key)}.`,
          { path: elidePath(pathText), at: elidePath(at) },
        );
      }
      current = current[step.key] as JsonValue;
      return;
    }
    if (!Array.isArray(current)) {
      const selector = step.kind === 'index' ? `index [${step.index}]` : `range [${step.start}:${step.end}]`;
      throw new StateflowError(
        'PATH_KIND',
        `Path ${quotePath(pathText)}: ${where} is ${article(kindOf(current))}, not an array, so ${selector} selects nothing.`,
        { path: elidePath(pathText), expected: 'array', actual: kindOf(current), at: elidePath(at) },
      );
    }
    const length = current.length;
    if (step.kind === 'index') {
      if (step.index >= length) {
        throw new StateflowError(
          'INDEX_OUT_OF_RANGE',
          `Path ${quotePath(pathText)}: index ${step.index} is out of range; ${where} has length ${length}${length === 0 ? '' : ` (indices 0..${length - 1})`}.`,
          { path: elidePath(pathText), index: step.index, length, at: elidePath(at) },
        );
      }
      current = current[step.index] as JsonValue;
      return;
    }
    if (step.end > length) {
      throw new StateflowError(
        'INDEX_OUT_OF_RANGE',
        `Path ${quotePath(pathText)}: range [${step.start}:${step.end}] does not fit; ${where} has length ${length}, so a range [start:end] needs end <= ${length}.`,
        { path: elidePath(pathText), index: `${step.start}:${step.end}`, length, at: elidePath(at) },
      );
    }
    current = current.slice(step.start, step.end);
  });
  return current;
}

/**
 * Reads `steps` from a scope root or effective root, treating an absent documented plane as
 * `null` (seed "Request shape": "An absent documented top-level field has value `null`,
 * including an empty or absent `response`").
 *
 * - The first step names a documented plane ({@link PLANES}) that `root` lacks (or a `response`
 *   that is `""`, `{}` or `[]`): the plane itself reads as `null`; any deeper step fails with
 *   `PATH_NOT_FOUND`, because nothing exists below an absent plane.
 * - Anything else, including an absent undocumented top-level key, resolves exactly as
 *   {@link resolvePath} does.
 *
 * No read rewrites or defaults storage: `null` here is a read result, never stored state.
 *
 * @param root a scope root (`global`, `cwd`, `session` state) or an effective root.
 * @throws StateflowError the codes of {@link resolvePath}.
 */
export function readPlaneAware(root: JsonValue, steps: readonly PathStep[], pathText: string): JsonValue {
  const first = steps[0];
  if (first?.kind === 'key' && isPlane(first.key) && isJsonObject(root) && planeIsAbsent(root, first.key)) {
    if (steps.length === 1) return null;
    const scope = pathText.slice(0, first.column - 1);
    throw new StateflowError(
      'PATH_NOT_FOUND',
      `Path ${quotePath(pathText)} not found: plane ${quotePath(first.key)} is absent${scope === '' ? '' : ` from ${quotePath(scope)}`}.`,
      { path: elidePath(pathText), at: elidePath(pathText.slice(0, stepEnd(steps, 0, pathText))) },
    );
  }
  return resolvePath(root, steps, pathText);
}

function planeIsAbsent(root: JsonObject, plane: string): boolean {
  if (!hasOwn(root, plane)) return true;
  if (plane !== 'response') return false;
  const response = root[plane] as JsonValue;
  if (response === '') return true;
  if (Array.isArray(response)) return response.length === 0;
  return isJsonObject(response) && Object.keys(response).length === 0;
}

/** Offset just past step `n` in the path text. */
function stepEnd(steps: readonly PathStep[], n: number, pathText: string): number {
  const next = steps[n + 1];
  return next === undefined ? pathText.length : next.column - 1;
}

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}
