/**
 * The JSON extraction engine shared by `slateWrite.match`, `if.jsonMatches` and
 * `retrieve.requestMatch` (seeds/ladr-reads-and-writes.txt "slateWrite.match and if.jsonMatches
 * use the same JSON extraction engine"; DESIGN.md "Decisions: Extraction"), and the one reading
 * of JSON text for slate values: text is parsed with `JSON.parse` and the result must then be a
 * JSON value by core's definition ({@link snapshotJson}, via {@link jsonCopy}) — `1e999`
 * (Infinity), a lone surrogate escape or nesting beyond core's `MAX_PATCH_DEPTH` parse, but are
 * not JSON values a slate can store.
 */
import type { JsonValue } from '@stateflow/core';
import { jsonCopy } from './json-copy.js';
import type { NonJson } from './json-copy.js';

/**
 * A JSON block read from text: its value as a deeply frozen core JSON copy, or — when the text
 * parses but holds something core does not accept as JSON — where and why.
 */
export type JsonBlock = { value: JsonValue } | { notJson: NonJson };

/** `JSON.parse` that answers `undefined` instead of throwing. */
function parseRaw(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A parsed value as a {@link JsonBlock}: core's {@link snapshotJson} decides what is JSON. */
function toBlock(raw: unknown): JsonBlock {
  const copy = jsonCopy(raw);
  return 'value' in copy ? { value: copy.value } : { notJson: copy };
}

/**
 * Read a whole text as JSON: `undefined` when `JSON.parse` rejects it, else a {@link JsonBlock}
 * (a `notJson` block for `1e999`, `"\ud800"`, nesting deeper than 512 levels).
 */
export function parseJsonText(text: string): JsonBlock | undefined {
  const raw = parseRaw(text);
  return raw === undefined ? undefined : toBlock(raw);
}

/**
 * The refusal reason for a value that is not JSON, e.g.
 * `the value is not JSON at "/a": Infinity is not a JSON number`.
 */
export function notJsonReason(nonJson: NonJson, subject = 'the value'): string {
  const at = nonJson.pointer === '' ? '' : ` at "${nonJson.pointer}"`;
  return `${subject} is not JSON${at}: ${nonJson.problem}`;
}

/** A candidate block: it parses and is not `null` (`null` is never a value). */
function candidate(text: string): unknown {
  const raw = parseRaw(text);
  return raw === null ? undefined : raw;
}

const FENCE_OPENER = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)/;
const FENCE_CLOSER = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/**
 * Fenced blocks in order: an opener line (a fence of 3+ backticks or tildes and an info string)
 * up to the next line that is exactly the same fence. One pass over the lines plus one forward
 * cursor per fence string, so many unclosed openers cost linear, not quadratic, time.
 */
function* fencedBlocks(output: string): Generator<{ info: string; body: string }> {
  const lines = output.split('\n');
  const closers = new Map<string, number[]>();
  lines.forEach((line, index) => {
    const fence = FENCE_CLOSER.exec(line)?.[1];
    if (fence === undefined) return;
    const list = closers.get(fence);
    if (list === undefined) closers.set(fence, [index]);
    else list.push(index);
  });
  const cursors = new Map<string, number>();
  for (let i = 0; i < lines.length - 1; i++) {
    const opener = FENCE_OPENER.exec(lines[i] as string);
    if (opener === null) continue;
    const fence = opener[1] as string;
    const candidates = closers.get(fence) ?? [];
    let k = cursors.get(fence) ?? 0;
    while (k < candidates.length && (candidates[k] as number) <= i) k++;
    cursors.set(fence, k);
    const close = candidates[k];
    if (close === undefined) continue;
    yield { info: opener[2] ?? '', body: lines.slice(i + 1, close).join('\n') };
    i = close;
  }
}

function fromFences(output: string): unknown {
  for (const { info, body } of fencedBlocks(output)) {
    if (info.toLowerCase() !== 'json') continue;
    const value = candidate(body);
    if (value !== undefined) return value;
  }
  return undefined;
}

const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/**
 * Characters the balanced scan may hand to `JSON.parse` in total, per character of output:
 * nested spans that fail to parse deep inside (`[[[…1,]…]]]`) would otherwise cost quadratic
 * time. Past the budget the scan stops and finds nothing.
 */
export const BALANCED_PARSE_BUDGET_PER_CHAR = 32;

/**
 * End indexes (exclusive) of balanced spans, or -1, memoised per opener. A scan from `start`
 * runs with fresh state (not in a string), exactly as scanning that span alone would; every
 * opener it passes outside strings gets its own answer from the same pass, and a later scan that
 * reaches a memoised opener jumps over its span (or fails with it), so each character is walked
 * a bounded number of times instead of once per opener before it.
 */
class BalancedSpans {
  readonly #text: string;
  readonly #end = new Map<number, number>();

  constructor(text: string) {
    this.#text = text;
  }

  /** End index (exclusive) of the balanced span starting at the opener `start`, or -1. */
  endOf(start: number): number {
    const known = this.#end.get(start);
    return known ?? this.#scan(start);
  }

  #fail(stack: number[]): number {
    for (const at of stack) this.#end.set(at, -1);
    return -1;
  }

  #scan(start: number): number {
    const text = this.#text;
    const stack: number[] = [];
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i] as string;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') {
        const known = i === start ? undefined : this.#end.get(i);
        if (known === -1) return this.#fail(stack);
        if (known !== undefined) i = known - 1;
        else stack.push(i);
      } else if (c === '}' || c === ']') {
        const open = stack.pop() as number;
        if (CLOSER[text[open] as string] !== c) return this.#fail([...stack, open]);
        this.#end.set(open, i + 1);
        if (stack.length === 0) return i + 1;
      }
    }
    return this.#fail(stack);
  }
}

function fromBalanced(output: string): unknown {
  const spans = new BalancedSpans(output);
  let budget = BALANCED_PARSE_BUDGET_PER_CHAR * output.length;
  for (let i = 0; i < output.length; i++) {
    const c = output[i];
    if (c !== '{' && c !== '[') continue;
    const end = spans.endOf(i);
    if (end === -1) continue;
    budget -= end - i;
    if (budget < 0) return undefined;
    const value = candidate(output.slice(i, end));
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Find the first JSON block of a model output, or `undefined` when there is none.
 *
 * 1. The whole output, parsed strictly (`JSON.parse`; surrounding whitespace allowed).
 * 2. Else the first fenced block whose info string is `json` (case-insensitive; ``` or ~~~
 *    fences) and whose contents parse; other fences are skipped.
 * 3. Else the first balanced `{…}` or `[…]` span (string- and escape-aware) that parses;
 *    balanced spans that do not parse (`{draft}`) are skipped and scanning resumes inside them.
 * 4. Else nothing. Malformed JSON is never repaired; a block that parses to `null` is skipped.
 *
 * Cost is bounded: spans are matched in one memoised pass, and the balanced scan hands at most
 * {@link BALANCED_PARSE_BUDGET_PER_CHAR} × `output.length` characters to `JSON.parse` in total
 * (past that it finds nothing; ordinary outputs never come near it).
 *
 * First block wins: later JSON blocks are ignored, also when the first one parses but is not a
 * JSON value by core's definition (`{"a": 1e999}`): that block is returned as `notJson`.
 */
export function extractJsonBlock(output: string): JsonBlock | undefined {
  const raw = candidate(output) ?? fromFences(output) ?? fromBalanced(output);
  return raw === undefined ? undefined : toBlock(raw);
}

/**
 * The first JSON value of a model output (see {@link extractJsonBlock}), deeply frozen, or
 * `undefined` when there is none or the first block is not a JSON value (the gates'
 * "no JSON": `if.jsonMatches` does not match, `retrieve` sees no request).
 */
export function extractJson(output: string): JsonValue | undefined {
  const block = extractJsonBlock(output);
  return block !== undefined && 'value' in block ? block.value : undefined;
}
