import { describe, expect, it } from 'vitest';
import { errorOf } from '@stateflow/test-kit';
import { compareFamilies, familyMatches, governingFamily, parseStreamFamily } from './stream-family.js';

const matches = (pattern: string, stream: string): boolean => familyMatches(parseStreamFamily(pattern), stream);

describe('stream-family patterns', () => {
  it('a pattern without a star names one stream', () => {
    expect(matches('cwd:/repo', 'cwd:/repo')).toBe(true);
    expect(matches('cwd:/repo', 'cwd:/repo/sub')).toBe(false);
    expect(matches('cwd:/repo', 'cwd:/rep')).toBe(false);
  });

  it('a star matches any run, across ":" and "/", the empty run included', () => {
    expect(matches('session:*', 'session:42')).toBe(true);
    expect(matches('session:*', 'session:')).toBe(true);
    expect(matches('langgraph:*', 'langgraph:thread-1/sub%2Fgraph')).toBe(true);
    expect(matches('langgraph:*', 'langgraph-index:thread-1')).toBe(false);
    expect(matches('cwd:/work/*/src', 'cwd:/work/a/b/src')).toBe(true);
    expect(matches('cwd:/work/*/src', 'cwd:/work/src')).toBe(false);
    expect(matches('*', 'global')).toBe(true);
    expect(matches('a*b*c', 'abc')).toBe(true);
    expect(matches('a*b*c', 'aXbYbZc')).toBe(true);
    expect(matches('a*bc*bc', 'abcbc')).toBe(true);
    expect(matches('a*bc*bc', 'abc')).toBe(false);
    expect(matches('*ab*ab', 'ab')).toBe(false);
  });

  it('"\\*" and "\\\\" are literal characters', () => {
    expect(matches('odd\\*id', 'odd*id')).toBe(true);
    expect(matches('odd\\*id', 'oddXid')).toBe(false);
    expect(matches('back\\\\slash*', 'back\\slash-1')).toBe(true);
    expect(parseStreamFamily('odd\\*id').parts).toEqual(['odd*id']);
  });

  it('reserved declaration streams belong to no family', () => {
    expect(matches('*', 'stateflow:shapes')).toBe(false);
    expect(matches('s*', 'stateflow:shapes')).toBe(false);
    expect(matches('s*', 'session:1')).toBe(true);
  });

  it('refuses malformed patterns with a typed error naming the reason', () => {
    for (const [pattern, reason] of [
      ['', 'empty'],
      ['session:**', 'double-star'],
      ['a\\b', 'escape'],
      ['trailing\\', 'escape'],
      ['tab\there', 'control-character'],
      ['x'.repeat(1025), 'too-long'],
      ['stateflow:*', 'reserved'],
      ['stateflow:shapes', 'reserved'],
    ] as const) {
      expect(errorOf(() => parseStreamFamily(pattern), 'INPUT_INVALID').details, pattern).toEqual({ field: 'pattern', reason });
    }
    expect(errorOf(() => parseStreamFamily(42 as unknown as string), 'INPUT_INVALID').details).toEqual({ field: 'pattern', reason: 'type' });
  });

  it('precedence: exact, then the longer literal prefix, then more literals, then code-unit order', () => {
    const order = ['session:agent-1', 'session:agent-*', 'session:*-1', 'session:*', 's*n:*', '*'].map(parseStreamFamily);
    const shuffled = [...order].reverse();
    expect(shuffled.sort(compareFamilies).map((f) => f.pattern)).toEqual(order.map((f) => f.pattern));
    expect(compareFamilies(parseStreamFamily('a*x'), parseStreamFamily('a*y'))).toBeLessThan(0);
    // The literal prefix decides before the count of literals.
    expect(compareFamilies(parseStreamFamily('session:*'), parseStreamFamily('s*:agent-long-name'))).toBeLessThan(0);
    expect(compareFamilies(parseStreamFamily('a*'), parseStreamFamily('a*'))).toBe(0);
  });

  it('governingFamily picks the matching family that takes precedence', () => {
    const shapes = ['session:*', 'session:agent-*', 'cwd:/repo'].map((pattern) => ({ name: pattern, family: parseStreamFamily(pattern) }));
    expect(governingFamily(shapes, 'session:agent-7')?.name).toBe('session:agent-*');
    expect(governingFamily(shapes, 'session:7')?.name).toBe('session:*');
    expect(governingFamily(shapes, 'cwd:/repo')?.name).toBe('cwd:/repo');
    expect(governingFamily(shapes, 'global')).toBeUndefined();
  });
});
