/**
 * Token counting for folder budgets with a real BPE tokenizer (gpt-tokenizer; DESIGN.md
 * "Ladder slates as a projection": "Token budgets count with a real BPE tokenizer"), with a
 * bounded cost per pre-token.
 *
 * BPE runs on each pre-token (a match of the encoding's split regex) separately, and its cost
 * grows quadratically with the pre-token's length: one 200,000-character run of a single
 * character is one pre-token and takes tens of seconds, blocking the event loop (and every other
 * request of a server). So a pre-token longer than {@link MAX_PRETOKEN_CHARS} is counted in
 * chunks of that size; everything else is counted exactly as gpt-tokenizer counts it.
 */
import { StateflowError } from '@stateflow/core';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX, R50K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/** Encodings gpt-tokenizer ships. Default `o200k_base` (GPT-4o and later). */
export const TOKEN_ENCODINGS = ['o200k_base', 'o200k_harmony', 'cl100k_base', 'p50k_base', 'p50k_edit', 'r50k_base'] as const;

/** A tokenizer encoding name. */
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];

/**
 * Counts the tokens of a text (special-token text is counted as ordinary text). Exact for every
 * text whose pre-tokens are at most {@link MAX_PRETOKEN_CHARS} long; see {@link loadTokenCounter}.
 */
export type TokenCounter = (text: string) => number;

/**
 * Longest pre-token, in UTF-16 code units, that is BPE-encoded whole. Longer pre-tokens (long
 * runs of one character class: `aaaa…`, `====…`, whitespace, CJK without spaces) are counted in
 * consecutive chunks of at most this many code units (a surrogate pair is never split).
 */
export const MAX_PRETOKEN_CHARS = 512;

/** The pre-tokenization regex gpt-tokenizer uses for each encoding (its own definitions). */
const SPLIT_REGEX: Record<TokenEncoding, RegExp> = {
  o200k_base: O200K_TOKEN_SPLIT_REGEX,
  o200k_harmony: O200K_TOKEN_SPLIT_REGEX,
  cl100k_base: CL100K_TOKEN_SPLIT_REGEX,
  p50k_base: R50K_TOKEN_SPLIT_REGEX,
  p50k_edit: R50K_TOKEN_SPLIT_REGEX,
  r50k_base: R50K_TOKEN_SPLIT_REGEX,
};

const loaded = new Map<string, Promise<TokenCounter>>();

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Sum of the exact counts of `piece`'s consecutive chunks of ≤ MAX_PRETOKEN_CHARS code units. */
function countInChunks(exact: TokenCounter, piece: string): number {
  let total = 0;
  for (let start = 0; start < piece.length; ) {
    let end = Math.min(start + MAX_PRETOKEN_CHARS, piece.length);
    if (end < piece.length && isHighSurrogate(piece.charCodeAt(end - 1))) end -= 1;
    total += exact(piece.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * Wrap an exact counter so no single BPE call sees more than MAX_PRETOKEN_CHARS of one
 * pre-token: the text is cut around its long pre-tokens; the stretches between them are counted
 * exactly, each long pre-token by {@link countInChunks}.
 */
function boundedCounter(exact: TokenCounter, split: RegExp): TokenCounter {
  return (text) => {
    if (text.length <= MAX_PRETOKEN_CHARS) return exact(text);
    let total = 0;
    let from = 0;
    for (const m of text.matchAll(split)) {
      const piece = m[0];
      if (piece.length <= MAX_PRETOKEN_CHARS) continue;
      if (m.index > from) total += exact(text.slice(from, m.index));
      total += countInChunks(exact, piece);
      from = m.index + piece.length;
    }
    if (from === 0) return exact(text);
    return from < text.length ? total + exact(text.slice(from)) : total;
  };
}

/**
 * Load the counter for an encoding (cached per process).
 *
 * Counting rule: the text is split with the encoding's own pre-tokenization regex (the one
 * gpt-tokenizer uses). When no pre-token is longer than {@link MAX_PRETOKEN_CHARS} code units
 * the count is gpt-tokenizer's `countTokens`, exactly. Otherwise each such long pre-token counts
 * as the sum of the exact counts of its consecutive chunks of at most MAX_PRETOKEN_CHARS code
 * units (a close estimate, normally a slight over-count: the cut stops merges across a chunk
 * boundary), and the text between long pre-tokens is counted exactly. The cost is therefore
 * linear in the text's length.
 *
 * @throws CONFIG_INVALID for an encoding gpt-tokenizer does not ship
 */
export function loadTokenCounter(encoding: string = 'o200k_base'): Promise<TokenCounter> {
  if (!(TOKEN_ENCODINGS as readonly string[]).includes(encoding)) {
    return Promise.reject(
      new StateflowError('CONFIG_INVALID', `Unknown token encoding "${encoding}"; use one of ${TOKEN_ENCODINGS.join(', ')}`, {
        problems: [`Unknown token encoding "${encoding}"`],
      }),
    );
  }
  let counter = loaded.get(encoding);
  if (counter === undefined) {
    counter = (import(`gpt-tokenizer/encoding/${encoding}`) as Promise<{ countTokens: (t: string, o?: object) => number }>).then((m) => {
      const exact: TokenCounter = (text) => (text === '' ? 0 : m.countTokens(text, { disallowedSpecial: new Set() }));
      return boundedCounter(exact, SPLIT_REGEX[encoding as TokenEncoding]);
    });
    loaded.set(encoding, counter);
  }
  return counter;
}
