/**
 * The append memo maps a grown array's text to exactly what mapping the whole text gives, and
 * shares the remembered items; anything but an append falls back to the whole mapping.
 */
import { describe, expect, it } from 'vitest';
import { AppendMemo } from './append-memo.js';
import { encodeJson } from './json-mapping.js';

const DEPTH = 500;

/** Map `texts` in turn through one memo, remembering each result as a stored state would hold it. */
function mapInTurn(texts: string[]): { memo: AppendMemo; results: unknown[] } {
  const memo = new AppendMemo();
  const results: unknown[] = [];
  for (const text of texts) {
    const recorded = new Map<string, string>();
    const value = memo.map('messages', text, DEPTH, recorded);
    results.push(value);
    memo.remember(recorded, { messages: { version: 1, type: 'json', value } });
  }
  return { memo, results };
}

describe('AppendMemo', () => {
  it('maps every text as the whole mapping does: appends, rewrites, shrinks, other values', () => {
    const items = Array.from({ length: 140 }, (_, i) => ({ role: 'ai', content: `message ${i}`, extra: i % 3 === 0 ? null : [i, { deep: `x${i}` }] }));
    const texts = [
      JSON.stringify(items.slice(0, 20)),
      JSON.stringify(items.slice(0, 21)),
      JSON.stringify(items.slice(0, 25)), // several appended at once
      JSON.stringify([...items.slice(0, 24), { role: 'human', content: 'changed' }]), // the last item rewritten
      JSON.stringify(items.slice(0, 10)), // shrunk
      JSON.stringify(items.slice(0, 40)),
      JSON.stringify(items.slice(0, 64)),
      JSON.stringify(items.slice(0, 70)), // flat to pages
      JSON.stringify(items.slice(0, 71)),
      JSON.stringify(items.slice(0, 128)), // a page filled
      JSON.stringify(items.slice(0, 140)), // and the next begun
      JSON.stringify(items.slice(0, 100)), // shrunk, paged
      JSON.stringify({ not: 'an array' }),
      JSON.stringify([1, 2, 3]),
      JSON.stringify([1, 2, 3, 4]), // inline arrays stay inline
      JSON.stringify(items.slice(0, 12).concat([null as never])),
      JSON.stringify(items.slice(0, 12).concat([null as never, 'a\ud800b' as never])),
    ];
    const { results } = mapInTurn(texts);
    results.forEach((result, i) => expect(result).toEqual(encodeJson(JSON.parse(texts[i] as string) as unknown, DEPTH)));
  });

  it('an appended text shares the remembered items and maps only the new ones', () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ content: `m${i}` }));
    const { results } = mapInTurn([JSON.stringify(items.slice(0, 29)), JSON.stringify(items)]);
    const [before, after] = results as Record<string, unknown>[];
    expect(after?.['$len']).toBe(30);
    expect(after?.['28']).toBe(before?.['28']); // the same object: the net patch needs no deep compare
    expect(after?.['29']).toEqual({ content: 'm29' });
  });

  it('a paged list grown by appending shares its full pages and the stored items of its last', () => {
    const items = Array.from({ length: 131 }, (_, i) => ({ content: `m${i}` }));
    const { results } = mapInTurn([JSON.stringify(items.slice(0, 130)), JSON.stringify(items)]);
    const [before, after] = results as Array<{ $len: number; $pages: Record<string, Record<string, unknown>> }>;
    expect(after?.$len).toBe(131);
    expect(after?.$pages['64']).toBe(before?.$pages['64']);
    expect(after?.$pages['128']?.['129']).toBe(before?.$pages['128']?.['129']);
    expect(after?.$pages['128']?.['130']).toEqual({ content: 'm130' });
  });

  it('a text that only looks like an append of another array is mapped whole', () => {
    const { results } = mapInTurn(['[[1,2],[3]]', '[[1,2],[3],[4]]', '[[1,2],[3,5]]', '[[1,2],[3,5],"x"]']);
    expect(results).toEqual(['[[1,2],[3]]', '[[1,2],[3],[4]]', '[[1,2],[3,5]]', '[[1,2],[3,5],"x"]'].map((t) => encodeJson(JSON.parse(t) as unknown, DEPTH)));
  });
});
