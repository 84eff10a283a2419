/**
 * The JSON extraction engine shared by `slateWrite.match`, `if.jsonMatches` and
 * `retrieve.requestMatch` (seeds/ladr-reads-and-writes.txt "slateWrite.match and if.jsonMatches
 * use the same JSON extraction engine"; DESIGN.md "Decisions: Extraction").
 */
import type { JsonValue } from '@stateflow/core';

function parse(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;

function fromFences(output: string): JsonValue | undefined {
  for (const m of output.matchAll(FENCE)) {
    if ((m[2] ?? '').toLowerCase() !== 'json') continue;
    const value = parse(m[3] ?? '');
    if (value !== undefined) return value;
  }
  return undefined;
}

const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/** End index (exclusive) of the balanced span starting at `start`, or -1. Respects strings. */
function balancedEnd(text: string, start: number): number {
  const expected: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') expected.push(CLOSER[c] as string);
    else if (c === '}' || c === ']') {
      if (expected.pop() !== c) return -1;
      if (expected.length === 0) return i + 1;
    }
  }
  return -1;
}

function fromBalanced(output: string): JsonValue | undefined {
  for (let i = 0; i < output.length; i++) {
    const c = output[i];
    if (c !== '{' && c !== '[') continue;
    const end = balancedEnd(output, i);
    if (end === -1) continue;
    const value = parse(output.slice(i, end));
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Extract the first JSON value from a model output, or `undefined` when there is none.
 *
 * 1. The whole output, parsed strictly (`JSON.parse`; surrounding whitespace allowed).
 * 2. Else the first fenced block whose info string is `json` (case-insensitive; ``` or ~~~
 *    fences) and whose contents parse; other fences are skipped.
 * 3. Else the first balanced `{…}` or `[…]` span (string- and escape-aware) that parses;
 *    balanced spans that do not parse (`{draft}`) are skipped and scanning resumes inside them.
 * 4. Else nothing. Malformed JSON is never repaired.
 *
 * First block wins: later JSON blocks are ignored.
 */
export function extractJson(output: string): JsonValue | undefined {
  return parse(output) ?? fromFences(output) ?? fromBalanced(output);
}
