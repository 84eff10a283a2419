/**
 * Token counting for folder budgets with a real BPE tokenizer (gpt-tokenizer; DESIGN.md
 * "Ladder slates as a projection": "Token budgets count with a real BPE tokenizer").
 */
import { StateflowError } from '@stateflow/core';

/** Encodings gpt-tokenizer ships. Default `o200k_base` (GPT-4o and later). */
export const TOKEN_ENCODINGS = ['o200k_base', 'o200k_harmony', 'cl100k_base', 'p50k_base', 'p50k_edit', 'r50k_base'] as const;

/** A tokenizer encoding name. */
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];

/** Counts the tokens of a text (special-token text is counted as ordinary text). */
export type TokenCounter = (text: string) => number;

const loaded = new Map<string, Promise<TokenCounter>>();

/**
 * Load the counter for an encoding (cached per process).
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
    counter = (import(`gpt-tokenizer/encoding/${encoding}`) as Promise<{ countTokens: (t: string, o?: object) => number }>).then(
      (m) => (text: string) => (text === '' ? 0 : m.countTokens(text, { disallowedSpecial: new Set() })),
    );
    loaded.set(encoding, counter);
  }
  return counter;
}
