import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractJson, extractJsonBlock } from './extract-json.js';
import { fcParams } from '@stateflow/test-kit';

/** Test oracle: the plain balanced scan, run afresh from every opener (quadratic, tiny inputs only). */
function naiveBalanced(text: string): unknown {
  const closer: Record<string, string> = { '{': '}', '[': ']' };
  const endOf = (start: number): number => {
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
      else if (c === '{' || c === '[') expected.push(closer[c] as string);
      else if (c === '}' || c === ']') {
        if (expected.pop() !== c) return -1;
        if (expected.length === 0) return i + 1;
      }
    }
    return -1;
  };
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    const end = endOf(i);
    if (end === -1) continue;
    try {
      const v = JSON.parse(text.slice(i, end)) as unknown;
      if (v !== null) return v;
    } catch {
      // not JSON: keep scanning
    }
  }
  return undefined;
}

const piece = fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', '1', 'a', ' ', '"k"', '{"a":1}', '[2]', 'null');

describe('extractJson balanced scan (memoised) agrees with the plain per-opener scan', () => {
  it('on random bracket/string soup without fences', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = `x ${parts.join('')}`; // never a whole-output parse, never a fence
        expect(extractJson(text)).toEqual(naiveBalanced(text));
      }),
      fcParams(),
    );
  });
});

describe('extraction cost is bounded (results asserted, not time)', () => {
  it('200,000 unmatched openers, nested failing spans and quote soup find no JSON', () => {
    expect(extractJsonBlock('['.repeat(200_000))).toBeUndefined();
    expect(extractJsonBlock(`${'['.repeat(100_000)}1,]${']'.repeat(100_000)}`)).toBeUndefined();
    expect(extractJsonBlock('{"'.repeat(100_000))).toBeUndefined();
  });
  it('a valid block after 20,000 unparseable bracketed spans is still found', () => {
    expect(extractJson(`${'[x "{" ] '.repeat(20_000)}{"ok":1}`)).toEqual({ ok: 1 });
  });
});
