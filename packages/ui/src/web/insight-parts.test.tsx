// @vitest-environment happy-dom
/** The parts of the second set of views that need no server: names cut in the middle, the search's query, a LangGraph message, the axis' ends. */
import { cleanup, render } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { messageLine } from './langgraph-steps-view.js';
import { MiddleCut, middleCut } from './middle-cut.js';
import { searchQuery } from './search-view.js';
import { AxisEnds } from './time-cursor.js';
import { blameLevel } from './use-blame.js';
import type { BlameEntry, BlamePage, Histogram } from './types.js';

afterEach(cleanup);

describe('middleCut', () => {
  it('keeps the start and the end of a long name, where names of one kind differ', () => {
    const name = 'cwd:/home/someone/work/clients/acme/projects/linting/eslint-config-fork-alpha';
    const cut = middleCut(name, 30);
    expect(cut).toHaveLength(30);
    expect(cut.startsWith('cwd:/home/someo')).toBe(true);
    expect(cut.endsWith('fork-alpha')).toBe(true);
    expect(cut).toContain('…');
    expect(middleCut('global', 30)).toBe('global');
  });

  it('shows the whole name on hover, as text', () => {
    const out = render(<MiddleCut text={'<b>x</b>'.repeat(10)} max={12} />);
    const span = out.container.querySelector('span');
    expect(span?.getAttribute('title')).toBe('<b>x</b>'.repeat(10));
    expect(out.container.querySelector('b')).toBeNull();
  });
});

describe('searchQuery', () => {
  it('sends a value that is not JSON as a JSON string, and JSON as it is', () => {
    expect(searchQuery('value', 'version', '9.2.0', 'cwd:/p')).toEqual({ stream: 'cwd:/p', key: 'version', value: '"9.2.0"' });
    expect(searchQuery('value', '', '3', null)).toEqual({ value: '3' });
    expect(searchQuery('text', ' ', 'babel', null)).toEqual({ text: 'babel' });
    expect(searchQuery('key', '/dependencies/eslint', 'ignored', null)).toEqual({ key: '/dependencies/eslint' });
  });
});

describe('messageLine', () => {
  it('reads a message as LangGraph shows it: its type and its text', () => {
    expect(messageLine({ type: 'ai', content: 'hi', tool_calls: [] })).toEqual({ type: 'ai', text: 'hi' });
    expect(messageLine({ type: 'human', content: [{ type: 'text', text: 'x' }] })).toEqual({ type: 'human', text: '[{"type":"text","text":"x"}]' });
    expect(messageLine('plain')).toEqual({ type: 'value', text: '(absent)' });
  });
});

describe('AxisEnds', () => {
  const bucket = { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', fromSeq: 1, toSeq: 10, count: 10 };
  const histogram = (axis: Histogram['axis']): Histogram => ({ lastSeq: 20, firstSeq: 1, stream: null, axis, buckets: [bucket, { ...bucket, fromSeq: 11, toSeq: 20 }] });

  it('names the ends over seq by seq, and says which time is shown', () => {
    const seq = render(<AxisEnds histogram={histogram('seq')} />);
    expect(seq.getByTestId('axis-ends').textContent).toBe('seq 1seq shown: equal runs of transitionsseq 20');
    cleanup();
    const date = render(<AxisEnds histogram={histogram('date')} />);
    expect(date.getByTestId('axis-name').textContent).toContain('meta date');
  });
});

describe('blameLevel', () => {
  const ref = (rev: number) => ({ stream: 's', seq: rev, rev, time: '2026-01-01T00:00:00.000Z' });
  const entry = (label: string, rev: number | null, atOrBefore: number): BlameEntry =>
    rev === null ? { label, pointer: `/${label}`, change: null, atOrBefore } : { label, pointer: `/${label}`, change: ref(rev) };
  const page = (entries: BlameEntry[], next: number | null): BlamePage => ({ stream: 's', rev: 30, pointer: '', entries, offset: 0, total: 3, scanned: 10, from: 1, next });

  it('follows next below the budget-ended page, keeping each child\'s newest change', async () => {
    const pages = new Map<number | undefined, BlamePage>([
      [undefined, page([entry('a', 28, 0), entry('b', null, 20), entry('c', null, 20)], 20)],
      [20, page([entry('a', 12, 0), entry('b', 15, 0), entry('c', null, 10)], 10)],
      [10, page([entry('a', 5, 0), entry('b', 3, 0), entry('c', null, 0)], null)],
    ]);
    const asked: Array<number | undefined> = [];
    const entries = await blameLevel(async (until) => {
      asked.push(until);
      return pages.get(until) as BlamePage;
    });
    expect(asked).toEqual([undefined, 20, 10]);
    expect(entries.map((e) => [e.label, e.change?.rev ?? null, e.atOrBefore ?? null])).toEqual([['a', 28, null], ['b', 15, null], ['c', null, 0]]);
  });
});
