import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { MAX_PRETOKEN_CHARS, loadTokenCounter } from './token-counter.js';

const PROSE = 'The quick brown fox jumps over the lazy dog. ';

describe('loadTokenCounter (gpt-tokenizer, bounded per pre-token)', () => {
  it('counts ordinary text exactly as gpt-tokenizer does', async () => {
    const count = await loadTokenCounter();
    const texts = [
      'Hello, world!',
      'Water boils at 100°C at sea level; it freezes at 0°C.',
      'Zoë 🚀 résumé — 東京タワー',
      '{"verdict": "accept", "score": 5}\n\n- item one\n- item two',
      'x'.repeat(MAX_PRETOKEN_CHARS),
      PROSE.repeat(400),
    ];
    expect(texts.map(count)).toEqual([4, 17, 10, 20, 64, 4001]);
    expect(texts.map(count)).toEqual(texts.map((t) => o200k(t)));
    expect(count('')).toBe(0);
  });

  it('other encodings count ordinary text exactly too (cl100k_base)', async () => {
    const count = await loadTokenCounter('cl100k_base');
    expect(count('Zoë 🚀 résumé — 東京タワー')).toBe(17);
    expect(count(PROSE.repeat(400))).toBe(4001);
  });

  it('a 200,000-character single-character output is counted as the sum of its 512-unit chunks', async () => {
    const count = await loadTokenCounter();
    // 200,000 = 390 × 512 + 320
    const chunked = 390 * o200k('a'.repeat(512)) + o200k('a'.repeat(320));
    expect(chunked).toBe(25000);
    expect(count('a'.repeat(200_000))).toBe(chunked);
  });

  it('a long whitespace run and a long emoji run are chunked without splitting surrogate pairs', async () => {
    const count = await loadTokenCounter();
    // one pre-token of 199,999 spaces (the last space joins "x"): 390 × 512 + 319, then " x"
    expect(count(`${' '.repeat(200_000)}x`)).toBe(390 * o200k(' '.repeat(512)) + o200k(' '.repeat(319)) + o200k(' x'));
    // 100,000 emoji = 200,000 UTF-16 units: 390 chunks of 256 emoji, then 160 emoji
    expect(count('🚀'.repeat(100_000))).toBe(390 * o200k('🚀'.repeat(256)) + o200k('🚀'.repeat(160)));
    // an odd cut: the high surrogate at unit 512 moves to the next chunk (511 + 512 + 2 units)
    const odd = `a${'🚀'.repeat(512)}`;
    expect(count(odd)).toBe(o200k(`a${'🚀'.repeat(255)}`) + o200k('🚀'.repeat(256)) + o200k('🚀'));
  });

  it('text around a long pre-token is counted exactly; the long pre-token in chunks', async () => {
    const count = await loadTokenCounter();
    const text = `${PROSE}Result:${'='.repeat(1200)}\n${PROSE}`;
    // o200k pre-token " ?[^\s\p{L}\p{N}]+[\r\n/]*" takes ":" + 1200 "=" + "\n" (1202 units)
    const long = `:${'='.repeat(1200)}\n`;
    const expected = o200k(`${PROSE}Result`) + o200k(long.slice(0, 512)) + o200k(long.slice(512, 1024)) + o200k(long.slice(1024)) + o200k(PROSE);
    expect(count(text)).toBe(expected);
  });

  it('an unknown encoding is CONFIG_INVALID', async () => {
    const err = await loadTokenCounter('gpt5_magic').catch((e: unknown) => e);
    expect(isStateflowError(err, 'CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toBe(
      'Unknown token encoding "gpt5_magic"; use one of o200k_base, o200k_harmony, cl100k_base, p50k_base, p50k_edit, r50k_base',
    );
  });
});
