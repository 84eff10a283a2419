// @vitest-environment happy-dom
/** The page's frame: the permalink, the tabs and title, the top bar, the key prompt, the list's keys, the inspector's empty states. */
import { cleanup, fireEvent, render } from '@testing-library/preact';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Inspector } from './inspector.js';
import { KeyPrompt } from './key-prompt.js';
import { listKey } from './list-keys.js';
import { permalinkHash, readPermalink, type Permalink, type Tab } from './permalink.js';
import { TopBar } from './top-bar.js';
import type { Selection } from './types.js';
import { selectionTitle, tabsFor, ViewTabs } from './view-tabs.js';

afterEach(cleanup);

describe('the permalink', () => {
  const text = fc.string({ minLength: 1, maxLength: 12 });
  const selection: fc.Arbitrary<Selection | null> = fc.oneof(
    fc.constant(null),
    text.map((stream) => ({ type: 'stream' as const, stream })),
    fc.record({ type: fc.constant('effective' as const), global: fc.boolean(), cwd: fc.oneof(fc.constant(''), text), session: fc.oneof(fc.constant(''), text) }),
  );
  const link: fc.Arbitrary<Permalink> = fc.record({
    selection,
    seq: fc.oneof(fc.constant(null), fc.nat()),
    tab: fc.constantFrom<Tab>('tree', 'diff', 'history', 'revisions', 'slates', 'merge', 'undo', 'search', 'lineage', 'steps', 'audit'),
    pointer: fc.oneof(fc.constant(null), text.map((t) => `/${t}`)),
    axis: fc.constantFrom(null, 'time' as const, 'seq' as const, 'date' as const),
  });

  it('reads back what it wrote', () => {
    fc.assert(
      fc.property(link, (l) => {
        expect(readPermalink(`#${permalinkHash(l)}`)).toEqual(l);
      }),
    );
  });

  it('leaves the defaults out', () => {
    expect(permalinkHash({ selection: { type: 'stream', stream: 'cwd:/p' }, seq: 12, tab: 'tree', pointer: null })).toBe('stream=cwd%3A%2Fp&seq=12');
    expect(readPermalink('')).toEqual({ selection: null, seq: null, tab: 'tree', pointer: null, axis: null });
  });

  it('keeps the time axis picked, and ignores an axis it does not know', () => {
    expect(permalinkHash({ selection: { type: 'stream', stream: 'g' }, seq: null, tab: 'tree', pointer: null, axis: 'date' })).toBe('stream=g&axis=date');
    expect(readPermalink('#stream=g&axis=seq').axis).toBe('seq');
    expect(readPermalink('#stream=g&axis=sideways').axis).toBeNull();
  });
});

describe('ViewTabs', () => {
  it('offers revisions for a stream and slates for a slate stream only', () => {
    expect(tabsFor({ type: 'stream', stream: 'slate:s1' }).map(([id]) => id)).toEqual(['tree', 'diff', 'history', 'revisions', 'slates', 'merge', 'undo', 'search', 'lineage', 'audit']);
    expect(tabsFor({ type: 'stream', stream: 'global' }).map(([id]) => id)).toEqual(['tree', 'diff', 'history', 'revisions', 'merge', 'undo', 'search', 'lineage', 'audit']);
    expect(tabsFor({ type: 'stream', stream: 'langgraph:t' }).map(([id]) => id)).toContain('steps');
    expect(tabsFor({ type: 'effective', global: true, cwd: '', session: '' }).map(([id]) => id)).toEqual(['tree', 'diff', 'history', 'search', 'audit']);
  });

  it('titles an effective view by its scopes', () => {
    expect(selectionTitle({ type: 'effective', global: true, cwd: '/p', session: 's' })).toBe('effective: global + cwd:/p + session:s');
    expect(selectionTitle({ type: 'effective', global: false, cwd: '', session: 's' })).toBe('effective: session:s');
  });

  it('marks the tab shown and hands out the one clicked', () => {
    const onTab = vi.fn();
    const view = render(<ViewTabs selection={{ type: 'stream', stream: 'global' }} tab="diff" onTab={onTab} />);
    expect(view.getByTestId('tab-diff').getAttribute('aria-selected')).toBe('true');
    expect(view.getByTestId('tab-tree').getAttribute('aria-selected')).toBe('false');
    fireEvent.click(view.getByTestId('tab-revisions'));
    expect(onTab).toHaveBeenCalledWith('revisions');
    expect(view.getByTestId('selection-title').textContent).toBe('global');
  });
});

describe('TopBar', () => {
  it('offers the new transitions, and shows the status', () => {
    const onTake = vi.fn();
    const view = render(<TopBar live fresh={3} onTakeFresh={onTake} status="Copied a.b" />);
    fireEvent.click(view.getByTestId('new-banner'));
    expect(view.getByTestId('new-banner').textContent).toBe('3 new transitions — show latest');
    expect(onTake).toHaveBeenCalledTimes(1);
    expect(view.getByText('● live')).toBeTruthy();
    expect(view.getByTestId('status').textContent).toBe('Copied a.b');
  });

  it('shows no banner without new transitions, and says when the watch is down', () => {
    const view = render(<TopBar live={false} fresh={0} onTakeFresh={vi.fn()} status="" />);
    expect(view.queryByTestId('new-banner')).toBeNull();
    expect(view.queryByTestId('status')).toBeNull();
    expect(view.getByText('○ not live')).toBeTruthy();
  });
});

describe('KeyPrompt', () => {
  it('hands out the key trimmed', () => {
    const onKey = vi.fn();
    const view = render(<KeyPrompt onKey={onKey} />);
    fireEvent.input(view.getByTestId('key-input'), { target: { value: '  sk-123 ' } });
    fireEvent.submit(view.getByTestId('key-input').closest('form')!);
    expect(onKey).toHaveBeenCalledWith('sk-123');
  });
});

describe('listKey', () => {
  it('moves within the list, a page at a time, to the ends, and activates on Enter', () => {
    expect(listKey('ArrowDown', 3, 10, 4)).toEqual({ move: 4 });
    expect(listKey('ArrowUp', 0, 10, 4)).toEqual({ move: 0 });
    expect(listKey('PageDown', 8, 10, 4)).toEqual({ move: 9 });
    expect(listKey('PageUp', 5, 10, 4)).toEqual({ move: 1 });
    expect(listKey('Home', 5, 10, 4)).toEqual({ move: 0 });
    expect(listKey('End', 5, 10, 4)).toEqual({ move: 9 });
    expect(listKey('Enter', 5, 10, 4)).toEqual({ activate: true });
    expect(listKey('x', 5, 10, 4)).toBeNull();
  });
});

describe('the inspector with no transition', () => {
  it('asks for a stream when none is picked, and says why there is none when one is', async () => {
    const none = render(<Inspector seq={null} selected={false} />);
    expect(await none.findByText('Pick a stream on the left to see the transition behind its state.')).toBeTruthy();
    cleanup();
    const picked = render(<Inspector seq={null} selected={true} />);
    expect(await picked.findByText(/^No transition to show: the stream has no revision here/)).toBeTruthy();
  });
});
