// @vitest-environment happy-dom
/** The parts of the second set of views that need no server: names cut in the middle, the search's query, a LangGraph message, the axis' ends. */
import { cleanup, render } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { messageLine } from './langgraph-steps-view.js';
import { MiddleCut, middleCut } from './middle-cut.js';
import { searchQuery } from './search-view.js';
import { AxisEnds } from './time-cursor.js';
import type { Histogram } from './types.js';

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
