/**
 * The JSON gate of the tool boundary: a tool input must be a JSON document — what `JSON.parse`
 * of UTF-8 text can produce — before any schema, path or patch logic sees it. In-process
 * callers can hand the runtime anything (a BigInt, a cycle, a function, a class instance, a
 * lone surrogate); this turns each into `INPUT_INVALID` naming where it sits.
 */
import { StateflowError } from '@stateflow/core';

/**
 * Deepest container nesting accepted in a tool input (the input object is level 1). Matches
 * core's patch bound, so a patch that passes here is never rejected for depth deeper down.
 */
export const MAX_INPUT_DEPTH = 512;

/** `details.reason` of the JSON gate's `INPUT_INVALID`. */
export type JsonInputReason = 'not-json' | 'too-deep' | 'not-utf8';

// With the `u` flag a surrogate class matches only unpaired surrogates: paired ones are one code point.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Checks that `input` is plain JSON data: strings without lone surrogates (not encodable as
 * UTF-8), finite numbers, booleans, `null`, dense plain arrays and plain objects (prototype
 * `Object.prototype` or `null`, no symbol keys), no cycles, at most {@link MAX_INPUT_DEPTH}
 * levels. Keys such as `__proto__` are data and are accepted (they are own properties).
 *
 * @param tool the tool name, for the message.
 * @throws StateflowError `INPUT_INVALID` with `{ field, reason }`: `field` is the dotted
 *   location (`patch.session.tactics`, `paths.1`), `reason` a {@link JsonInputReason}. A getter
 *   or proxy trap that throws while reading is `not-json` too, with the thrown error as `cause`.
 */
export function checkJsonInput(tool: string, input: unknown): void {
  try {
    walk(tool, input, [], new Set());
  } catch (err) {
    if (err instanceof StateflowError) throw err;
    throw new StateflowError('INPUT_INVALID', `${tool} input cannot be read as JSON: ${String((err as Error)?.message ?? err)}.`, { reason: 'not-json' }, { cause: err });
  }
}

function walk(tool: string, value: unknown, at: string[], ancestors: Set<object>): void {
  switch (typeof value) {
    case 'boolean':
      return;
    case 'string':
      if (LONE_SURROGATE.test(value)) throw invalid(tool, at, 'not-utf8', 'is a string with an unpaired UTF-16 surrogate (not encodable as UTF-8)');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw invalid(tool, at, 'not-json', `is ${String(value)}, not a JSON number`);
      return;
    case 'object':
      if (value === null) return;
      break;
    default:
      throw invalid(tool, at, 'not-json', `is a ${typeof value}, not a JSON value`);
  }
  if (ancestors.has(value)) throw invalid(tool, at, 'not-json', 'contains a cycle');
  if (ancestors.size >= MAX_INPUT_DEPTH) throw invalid(tool, at, 'too-deep', `nests containers more than ${MAX_INPUT_DEPTH} levels deep`);
  ancestors.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw invalid(tool, at, 'not-json', 'is an array subclass, not a JSON array');
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw invalid(tool, [...at, String(i)], 'not-json', 'is a hole in a sparse array');
      walk(tool, value[i], [...at, String(i)], ancestors);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw invalid(tool, at, 'not-json', 'is a class instance, not a plain JSON object');
    if (Object.getOwnPropertySymbols(value).length > 0) throw invalid(tool, at, 'not-json', 'has symbol keys');
    for (const key of Object.keys(value)) {
      if (LONE_SURROGATE.test(key)) throw invalid(tool, at, 'not-utf8', 'has a key with an unpaired UTF-16 surrogate (not encodable as UTF-8)');
      walk(tool, (value as Record<string, unknown>)[key], [...at, key], ancestors);
    }
  }
  ancestors.delete(value);
}

function invalid(tool: string, at: string[], reason: JsonInputReason, problem: string): StateflowError<'INPUT_INVALID'> {
  const field = at.join('.');
  const where = field === '' ? `${tool} input` : `${tool} input "${field}"`;
  return new StateflowError('INPUT_INVALID', `${where} ${problem}; tool inputs must be JSON.`, { ...(field === '' ? {} : { field }), reason });
}
