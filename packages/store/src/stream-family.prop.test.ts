import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '@stateflow/test-kit';
import { compareFamilies, familyMatches, governingFamily, parseStreamFamily } from './stream-family.js';

/** Patterns over a small alphabet (so stars and literals meet often), with escapes. */
const literalChar = fc.constantFrom('a', 'b', ':', '/', '\\*', '\\\\');
const pattern = fc
  .array(fc.oneof({ weight: 3, arbitrary: literalChar }, { weight: 1, arbitrary: fc.constant('*') }), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join('').replace(/\*+/g, '*'))
  .filter((p) => p.length > 0);
const id = fc.array(fc.constantFrom('a', 'b', ':', '/', '*', '\\'), { maxLength: 10 }).map((chars) => chars.join(''));

/** The oracle: the pattern as an anchored regular expression. */
function oracle(text: string): RegExp {
  let source = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '*') source += '[\\s\\S]*';
    else if (ch === '\\') source += `\\${text[++i]}`;
    else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

describe('stream-family properties', () => {
  it('matching agrees with the pattern read as an anchored regular expression', () => {
    fc.assert(
      fc.property(pattern, id, (p, stream) => {
        expect(familyMatches(parseStreamFamily(p), stream)).toBe(oracle(p).test(stream));
      }),
      fcParams({ share: 5 }),
    );
  });

  it('precedence is a total order: antisymmetric, transitive, 0 only for the same pattern', () => {
    fc.assert(
      fc.property(pattern, pattern, pattern, (a, b, c) => {
        const [fa, fb, fc_] = [a, b, c].map(parseStreamFamily) as [ReturnType<typeof parseStreamFamily>, ReturnType<typeof parseStreamFamily>, ReturnType<typeof parseStreamFamily>];
        expect(Math.sign(compareFamilies(fa, fb)) + Math.sign(compareFamilies(fb, fa))).toBe(0);
        expect(compareFamilies(fa, fb) === 0).toBe(a === b);
        if (compareFamilies(fa, fb) < 0 && compareFamilies(fb, fc_) < 0) expect(compareFamilies(fa, fc_)).toBeLessThan(0);
      }),
      fcParams({ share: 3 }),
    );
  });

  it('the governing family matches the stream and takes precedence over every other that does', () => {
    fc.assert(
      fc.property(fc.uniqueArray(pattern, { maxLength: 6 }), id, (patterns, stream) => {
        const families = patterns.map((p) => ({ family: parseStreamFamily(p) }));
        const winner = governingFamily(families, stream);
        const matching = families.filter((f) => familyMatches(f.family, stream));
        if (matching.length === 0) expect(winner).toBeUndefined();
        else for (const other of matching) expect(compareFamilies((winner as (typeof families)[number]).family, other.family)).toBeLessThanOrEqual(0);
      }),
      fcParams(),
    );
  });
});
