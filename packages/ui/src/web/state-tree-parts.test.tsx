// @vitest-environment happy-dom
/** The state tree's parts: the rows walk, the parent lookup, the keys, a node's row and the header. */
import { cleanup, fireEvent, render } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api.js';
import { ShapeToggle, TreeError, TreeHead } from './tree-head.js';
import { RevisionItem, shapeVersion } from './revisions.js';
import { treeKey, type TreeKeyActions } from './tree-keys.js';
import type { NodeLoad, TreeView } from './tree-load.js';
import { MoreRow, NodeRow } from './tree-row.js';
import { parentIndex, treeRows } from './tree-rows.js';
import type { NodeChild, StreamNode } from './types.js';

afterEach(cleanup);

const child = (pointer: string, kind: NodeChild['kind'], extra: Partial<NodeChild> = {}): NodeChild => ({
  kind,
  label: pointer.split('/').pop() ?? '',
  pointer,
  changed: false,
  path: pointer.replaceAll('/', '.').slice(1),
  ...(kind === 'object' ? { size: 1 } : kind === 'string' ? { preview: 'x', length: 1 } : {}),
  ...extra,
});
const page = (pointer: string, children: NodeChild[], total = children.length): NodeLoad => ({
  page: { kind: 'object', pointer, changed: false, children, offset: 0, total },
  children,
});

/** `{ a: { b: "x" }, c: "x" }` with `a` loaded, and 3 more children of the root than loaded. */
const nodes = new Map<string, NodeLoad>([
  ['', page('', [child('/a', 'object'), child('/c', 'string')], 5)],
  ['/a', page('/a', [child('/a/b', 'string')])],
]);

describe('treeRows', () => {
  it('walks open nodes depth first, with a load-more row where children remain', () => {
    const rows = treeRows(nodes, new Set(['/a']));
    expect(rows.map((r) => (r.type === 'node' ? `${r.depth}:${r.child.pointer}` : `${r.depth}:more ${r.pointer} ${r.remaining}`))).toEqual([
      '1:/a',
      '2:/a/b',
      '1:/c',
      '1:more  3',
    ]);
  });

  it('leaves the children of a closed node out, even when loaded', () => {
    expect(treeRows(nodes, new Set()).map((r) => (r.type === 'node' ? r.child.pointer : 'more'))).toEqual(['/a', '/c', 'more']);
  });

  it('finds the parent row of a nested row, and none at the top level', () => {
    const rows = treeRows(nodes, new Set(['/a']));
    expect(parentIndex(rows, 1)).toBe(0);
    expect(parentIndex(rows, 2)).toBe(-1);
    expect(parentIndex(rows, 9)).toBe(-1);
  });
});

describe('treeKey', () => {
  const rows = treeRows(nodes, new Set(['/a']));
  const actions = (open: Set<string>) => {
    const calls: string[] = [];
    const act: TreeKeyActions = {
      isOpen: (p) => open.has(p),
      toggle: (c, to) => calls.push(`${to.open ? 'open' : 'close'} ${c.pointer}`),
      focus: (i) => calls.push(`focus ${i}`),
      history: (c) => calls.push(`history ${c.pointer}`),
      copy: (c) => calls.push(`copy ${c.pointer}`),
    };
    return { act, calls };
  };

  it('Right opens a closed container, then enters it', () => {
    const closed = actions(new Set());
    expect(treeKey(rows, 0, 'ArrowRight', closed.act)).toBe(true);
    const open = actions(new Set(['/a']));
    treeKey(rows, 0, 'ArrowRight', open.act);
    expect([...closed.calls, ...open.calls]).toEqual(['open /a', 'focus 1']);
  });

  it('Left closes an open container, else goes to the parent', () => {
    const { act, calls } = actions(new Set(['/a']));
    treeKey(rows, 0, 'ArrowLeft', act);
    treeKey(rows, 1, 'ArrowLeft', act);
    expect(calls).toEqual(['close /a', 'focus 0']);
  });

  it('Enter asks for the history, c copies, other keys and the load-more row are left to the list', () => {
    const { act, calls } = actions(new Set(['/a']));
    expect(treeKey(rows, 2, 'Enter', act)).toBe(true);
    expect(treeKey(rows, 1, 'c', act)).toBe(true);
    expect(treeKey(rows, 1, 'ArrowDown', act)).toBe(false);
    expect(treeKey(rows, 3, 'Enter', act)).toBe(false);
    expect(calls).toEqual(['history /c', 'copy /a/b']);
  });
});

describe('NodeRow', () => {
  it('shows the key, the value, the marks, and calls back from its buttons', () => {
    const handlers = { onToggle: vi.fn(), onCopy: vi.fn(), onHistory: vi.fn() };
    const c = child('/x', 'object', { changed: true, scope: 'cwd', shadows: [{ kind: 'number', preview: 3, scope: 'global' }] });
    const view = render(<NodeRow child={c} depth={2} open={false} {...handlers} />);
    const row = view.container.querySelector('[data-pointer="/x"]');
    expect(row?.getAttribute('style')).toContain('padding-left: 20px');
    expect(view.getByTestId('node-value').textContent).toBe('{1 key}');
    expect(view.getByText('● changed')).toBeTruthy();
    expect(view.getByText('from cwd')).toBeTruthy();
    expect(view.getByText('shadows global: 3')).toBeTruthy();
    expect(view.container.querySelector('.toggle')?.textContent).toBe('▸');
    fireEvent.click(view.getByText('copy path'));
    fireEvent.click(view.getByText('history'));
    fireEvent.click(view.container.querySelector('.toggle')!);
    expect([handlers.onCopy.mock.calls.length, handlers.onHistory.mock.calls.length, handlers.onToggle.mock.calls.length]).toEqual([1, 1, 1]);
  });

  it('shows the scopes an object merges instead of one scope', () => {
    const view = render(<NodeRow child={child('/m', 'object', { scope: 'session', merges: ['global', 'session'] })} depth={1} open onToggle={vi.fn()} onCopy={vi.fn()} onHistory={vi.fn()} />);
    expect(view.getByText('merged global + session')).toBeTruthy();
    expect(view.queryByText('from session')).toBeNull();
    expect(view.container.querySelector('.toggle')?.textContent).toBe('▾');
  });

  it('offers at most one page of more children', () => {
    const onMore = vi.fn();
    const view = render(<MoreRow depth={1} remaining={450} onMore={onMore} />);
    fireEvent.click(view.getByRole('button'));
    expect(view.getByRole('button').textContent).toBe('Load 200 more (450 not shown)');
    expect(onMore).toHaveBeenCalledTimes(1);
  });
});

describe('TreeHead and TreeError', () => {
  const root = { ...page('', [], 1).page, stream: 'global', streamKind: 'global', rev: 4, seq: 9, head: 7, headSeq: 12, origin: 2, path: null, cli: 'stateflow get' } as StreamNode;
  it('names the revision, the head and the compacted origin', () => {
    const view: TreeView = { cursor: 9, rev: 4, seq: 9, head: 7, origin: 2, root, shownSeq: 9 };
    const out = render(<TreeHead view={view} />);
    expect(out.getByTestId('tree-rev').textContent).toBe('revision 4 of 7 (origin 2; earlier revisions compacted)');
    expect(out.getByText('1 top-level key')).toBeTruthy();
  });

  it('explains a compacted revision, and shows any other error by code', () => {
    const compacted = render(<TreeError error={new ApiError(410, 'HISTORY_NOT_RETAINED', 'gone', { origin: 40 })} />);
    expect(compacted.getByTestId('tree-compacted').textContent).toContain('before revision 40 was compacted');
    cleanup();
    const other = render(<TreeError error={new ApiError(404, 'STREAM_NOT_FOUND', 'no such stream')} />);
    expect(other.getByRole('alert').textContent).toBe('STREAM_NOT_FOUND: no such stream');
  });
});

describe('ShapeToggle and the revision shape badge', () => {
  const root = { ...page('', [], 1).page, stream: 'session:1', streamKind: 'session', rev: 2, seq: 3, head: 5, headSeq: 8, origin: 0, path: null, cli: 'stateflow get' } as StreamNode;
  const view = (shape?: StreamNode['shape']): TreeView => ({ cursor: 3, rev: 2, seq: 3, head: 5, origin: 0, root: { ...root, ...(shape === undefined ? {} : { shape }) }, shownSeq: 3 });

  it('offers stored and current, says the version written and shown, and hands out the choice', () => {
    const onShape = vi.fn();
    const out = render(<ShapeToggle view={view({ name: 'note', written: 1, shown: 3, latest: 3 })} shape="current" onShape={onShape} />);
    expect(out.getByTestId('shape-facts').textContent).toBe('shape note: written in v1, shown as v3 (latest v3)');
    expect((out.getByTestId('shape-current') as HTMLInputElement).checked).toBe(true);
    fireEvent.click(out.getByTestId('shape-stored'));
    expect(onShape).toHaveBeenCalledWith('stored');
  });

  it('says when no shape governs the stream, and when the written version was compacted away', () => {
    expect(render(<ShapeToggle view={view()} shape="stored" onShape={() => undefined} />).getByTestId('shape-facts').textContent).toBe('no shape governs this stream');
    cleanup();
    const out = render(<ShapeToggle view={view({ name: 'note', written: null, shown: 0, latest: 2 })} shape="stored" onShape={() => undefined} />);
    expect(out.getByTestId('shape-facts').textContent).toBe('shape note: written in a compacted transition, shown as v0 (latest v2)');
  });

  it('badges a revision with the version recorded for its stream only', () => {
    const row = { rev: 1, seq: 2, time: '2026-01-01T00:00:00.000Z', streams: 2, meta: { shape: { 'session:1': { name: 'note', version: 1 }, 'session:2': { name: 'other', version: 4 } } } };
    expect(shapeVersion(row, 'session:1')).toBe('shape note v1');
    expect(shapeVersion(row, 'session:3')).toBeNull();
    expect(shapeVersion({ ...row, meta: {} }, 'session:1')).toBeNull();
    expect(render(<RevisionItem row={row} atCursor={false} stream="session:2" />).getByTestId('shape-version').textContent).toBe('shape other v4');
  });
});
