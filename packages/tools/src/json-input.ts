/**
 * The JSON gate of the tool boundary: a tool input must be a JSON document — what `JSON.parse`
 * of UTF-8 text can produce — before any schema, path or patch logic sees it. In-process
 * callers can hand the runtime anything (a BigInt, a cycle, a function, a class instance, a
 * lone surrogate); core's {@link snapshotJson} (the one JSON copier) finds it, and its
 * `PATCH_INVALID` is reported here as `INPUT_INVALID` naming where it sits. Public for transports
 * that forward tool inputs (the stdio client of `/mcp`): a value that JSON text cannot carry,
 * such as `1e400` parsed to Infinity, must be refused where it was parsed, with the same error,
 * not changed by re-serialisation on the way.
 */
import { StateflowError, isStateflowError, pointerSegments, snapshotJson } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';

/**
 * A deep, frozen JSON copy of `input`, read exactly once (getters run once, so the schema, the
 * paths and the patch all see the same data). Nesting is bounded by core's `MAX_PATCH_DEPTH`
 * (512, the input object being level 1). Keys such as `__proto__` are data; a symbol-keyed
 * member is not JSON and is refused (`JSON.stringify` would drop it silently).
 *
 * @param tool the tool name, for the message.
 * @throws StateflowError `INPUT_INVALID` with `{ field?, reason }`: `field` is the dotted
 *   location (`patch.session.tactics`, `paths.1`), `reason` is `not-json` (undefined, NaN,
 *   ±Infinity, bigint, function, symbol or symbol-keyed member, class instance, array subclass, sparse array, cycle,
 *   a string or key with a lone surrogate) or `too-deep`. A getter or proxy trap that throws is
 *   `not-json` too, with the thrown error as `cause`.
 */
export function jsonInput(tool: string, input: unknown): JsonValue {
  try {
    return snapshotJson(input);
  } catch (err) {
    if (isStateflowError(err, 'PATCH_INVALID')) {
      const field = fieldOf(err.details.at ?? '');
      const problem = err.details.problem ?? err.message;
      const where = field === '' ? `${tool} input` : `${tool} input "${field}"`;
      return fail(`${where} is not JSON: ${problem}; tool inputs must be JSON.`, { ...(field === '' ? {} : { field }), reason: err.details.reason }, err);
    }
    const text = err instanceof Error ? err.message : String(err);
    return fail(`${tool} input cannot be read as JSON: ${text}.`, { reason: 'not-json' }, err);
  }
}

function fail(message: string, details: { field?: string; reason: string }, cause: unknown): never {
  throw new StateflowError('INPUT_INVALID', message, details, { cause });
}

/** `/patch/session/a~1b` → `patch.session.a/b` (RFC 6901 unescaped, dotted). */
function fieldOf(pointer: string): string {
  return pointerSegments(pointer).join('.');
}
