/**
 * Stream families (README "Stream families"): a pattern over stream ids that names a set of
 * streams — `session:*`, `cwd:/repo`, `langgraph:*` — for what is declared per family (a shape
 * today; retention policies and tags build on the same grammar and precedence).
 *
 * Grammar, exactly:
 *
 * ```
 * pattern := part+                       at most 1,024 bytes of UTF-8, no control characters
 * part    := '*'                         any run of characters, the empty run included
 *          | '\*' | '\\'                 a literal '*' or '\'
 *          | any other character         itself
 * ```
 *
 * `*` matches across `:` and `/` (stream ids are not paths: `langgraph:*` holds the subgraph
 * namespaces `langgraph:<thread>/<ns>` too), and a pattern matches the whole id, so a pattern
 * without `*` names one stream. `**` is refused (it means what `*` means; one spelling keeps
 * precedence well defined), as is a `\` before any other character. Streams reserved for
 * declarations (`stateflow:…`, `declarations.ts`) belong to no family.
 *
 * Precedence, when several patterns match one id: an exact pattern (no `*`) first; then the
 * longer literal prefix (characters before the first `*`); then more literal characters in all;
 * then the pattern that sorts first by UTF-16 code units. So `session:agent-*` beats
 * `session:*`, and any two distinct patterns are ordered.
 *
 * Why not picomatch (used for slate globs): it is a path glob — `*` stops at `/` and at a
 * leading `.`, and `?`, `[…]`, `{a,b}`, `!` and extglobs are syntax — so `langgraph:*` would
 * miss every subgraph namespace, ids holding those characters would need escaping, and "which
 * pattern is more specific" has no answer for braces and classes. Stars alone keep the grammar
 * one line, precedence total, and every reader (the CLI, the server, another language's client)
 * able to implement exactly the same matching.
 */
import { StateflowError, describeInput } from '@stateflow/core';
import { isReservedStream } from './declarations.js';
import type { StreamId } from './types.js';

/** Most bytes of UTF-8 in a pattern (a stream id's bound). */
export const MAX_PATTERN_BYTES = 1024;

/** A parsed stream-family pattern. */
export interface StreamFamily {
  /** The pattern as written (escapes included). */
  readonly pattern: string;
  /** The literal runs between stars, unescaped: `a*b*` → `['a', 'b', '']`; one part when there is no star. */
  readonly parts: readonly string[];
}

/**
 * Parse a stream-family pattern (grammar in the module header).
 * @throws INPUT_INVALID `{ field: 'pattern', reason }`: `reason` is `type` (not a string),
 *   `empty`, `too-long` (over {@link MAX_PATTERN_BYTES}), `control-character`, `double-star`,
 *   `escape` (a `\` not before `*` or `\`), or `reserved` (a pattern inside `stateflow:`).
 */
export function parseStreamFamily(pattern: string): StreamFamily {
  const refuse = (reason: string, why: string): never => {
    throw new StateflowError('INPUT_INVALID', `Stream family pattern ${describeInput(pattern)} ${why}`, { field: 'pattern', reason });
  };
  if (typeof pattern !== 'string') return refuse('type', 'is not a string');
  if (pattern.length === 0) refuse('empty', 'is empty: name a stream (cwd:/repo) or a family (session:*)');
  if (Buffer.byteLength(pattern, 'utf8') > MAX_PATTERN_BYTES) refuse('too-long', `is longer than ${MAX_PATTERN_BYTES} bytes of UTF-8`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(pattern)) refuse('control-character', 'holds a control character');
  const parts: string[] = [''];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*') {
      if (pattern[i + 1] === '*') refuse('double-star', `has "**" at character ${i + 1}: write one "*" (it matches any run of characters, ":" and "/" included)`);
      parts.push('');
      continue;
    }
    let literal = ch;
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next !== '*' && next !== '\\') refuse('escape', `has a "\\" at character ${i + 1} that escapes nothing: "\\*" is a literal star, "\\\\" a literal backslash`);
      literal = next as string;
      i++;
    }
    parts[parts.length - 1] += literal;
  }
  // Only a pattern all of whose ids are reserved is refused: `s*` matches `session:1` too.
  if (isReservedStream(parts[0] as string)) refuse('reserved', 'names only streams reserved for declarations (stateflow:…), which belong to no family');
  return Object.freeze({ pattern, parts: Object.freeze(parts) });
}

/** Whether `family` is one exact stream id (a pattern without `*`). */
export function isExactFamily(family: StreamFamily): boolean {
  return family.parts.length === 1;
}

/**
 * Whether `stream` belongs to `family`: the pattern matches the whole id. Reserved declaration
 * streams belong to no family. Linear in the id for each star's literal (a greedy match that
 * backtracks only to the last star, as glob matchers do).
 */
export function familyMatches(family: StreamFamily, stream: StreamId): boolean {
  if (isReservedStream(stream)) return false;
  const { parts } = family;
  const first = parts[0] as string;
  if (parts.length === 1) return stream === first;
  const last = parts[parts.length - 1] as string;
  if (stream.length < first.length + last.length || !stream.startsWith(first) || !stream.endsWith(last)) return false;
  // The middle literals, leftmost first, inside what the first and last literals leave.
  let at = first.length;
  const end = stream.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const literal = parts[i] as string;
    const found = stream.indexOf(literal, at);
    if (found === -1 || found + literal.length > end) return false;
    at = found + literal.length;
  }
  return true;
}

/**
 * Precedence of two families (module header): negative when `a` takes precedence over `b`,
 * positive when `b` does, 0 only for the same pattern.
 */
export function compareFamilies(a: StreamFamily, b: StreamFamily): number {
  const exact = Number(isExactFamily(b)) - Number(isExactFamily(a));
  if (exact !== 0) return exact;
  const prefix = (b.parts[0] as string).length - (a.parts[0] as string).length;
  if (prefix !== 0) return prefix;
  const literal = literalLength(b) - literalLength(a);
  if (literal !== 0) return literal;
  return a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0;
}

/** The member of `candidates` whose family matches `stream` and takes precedence, or `undefined`. */
export function governingFamily<T extends { family: StreamFamily }>(candidates: Iterable<T>, stream: StreamId): T | undefined {
  let best: T | undefined;
  for (const candidate of candidates) {
    if (!familyMatches(candidate.family, stream)) continue;
    if (best === undefined || compareFamilies(candidate.family, best.family) < 0) best = candidate;
  }
  return best;
}

function literalLength(family: StreamFamily): number {
  let n = 0;
  for (const part of family.parts) n += part.length;
  return n;
}
