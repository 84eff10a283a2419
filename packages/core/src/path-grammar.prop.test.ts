import fc from 'fast-check';
import { describe, it } from 'vitest';
import { StateflowError } from './errors.js';
import { formatPath, parsePath, SCOPE_ROOTS } from './path-grammar.js';
import type { PathStep } from './path-grammar.js';
import { fcParams } from '@stateflow/test-kit';

const params = fcParams();

const key = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$-]{0,8}$/);
const uint = fc.nat({ max: 1_000_000 });
const member = key.map((k): PathStep => ({ kind: 'key', key: k, column: 0 }));
const index = uint.map((i): PathStep => ({ kind: 'index', index: i, column: 0 }));
const range = fc
  .tuple(uint, uint)
  .map(([a, b]): PathStep => ({ kind: 'range', start: Math.min(a, b), end: Math.max(a, b), column: 0 }));
const parts = fc
  .record({
    root: fc.constantFrom(null, ...SCOPE_ROOTS),
    at: fc.option(uint, { nil: null }),
    tag: fc.option(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,12}$/), { nil: null }),
    first: member,
    middle: fc.array(fc.oneof(member, index), { maxLength: 6 }),
    last: fc.option(range, { nil: null }),
  })
  .map(({ root, at, tag, first, middle, last }) => {
    const steps = [first, ...middle, ...(last === null ? [] : [last])];
    // A root may be a bare name (`cwd`), so its own first step may be anything; unscoped starts with a key.
    return { root, at: root === null ? null : at, tag: root === null || at !== null ? null : tag, steps };
  })
  .filter((p) => p.root !== null || !(p.steps[0]?.kind === 'key' && SCOPE_ROOTS.includes(p.steps[0].key as never)));

const withoutColumns = (steps: readonly PathStep[]) => steps.map(({ column: _column, ...rest }) => rest);

describe('path grammar properties', () => {
  it('parsePath(formatPath(p)) gives back p, and columns point at each step', () => {
    fc.assert(
      fc.property(parts, (p) => {
        const text = formatPath(p);
        const parsed = parsePath(text);
        if (parsed.root !== p.root || parsed.at !== p.at || parsed.tag !== p.tag) return false;
        if (JSON.stringify(withoutColumns(parsed.steps)) !== JSON.stringify(withoutColumns(p.steps))) return false;
        return parsed.steps.every((s, n) => (n === 0 && p.root === null ? s.column === 1 : '.['.includes(text[s.column - 1] ?? '')));
      }),
      params,
    );
  });

  it('any text either parses or fails with PATH_SYNTAX and a column inside (or just past) the text', () => {
    const alphabet = fc.constantFrom(...'ab$_-.[]:0129 *?,"\'+-é'.split(''), 'cwd', 'lazy', '..');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 12 }).map((a) => a.join('')), (text) => {
        try {
          parsePath(text);
          return true;
        } catch (err) {
          return (
            err instanceof StateflowError &&
            err.code === 'PATH_SYNTAX' &&
            (err.details as { column: number }).column >= 1 &&
            (err.details as { column: number }).column <= Math.max(1, text.length)
          );
        }
      }),
      params,
    );
  });
});
