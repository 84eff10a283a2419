// @vitest-environment happy-dom
/** The diff's parts: an entry, the controls, and the body (filters, patch mode, truncation). */
import { cleanup, fireEvent, render } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DiffControls, type DiffControlsProps } from './diff-controls.js';
import { DiffRow } from './diff-row.js';
import { DiffBody } from './diff-view.js';
import { diffQuery } from './use-diff.js';
import type { DiffEntry, DiffResult } from './types.js';

afterEach(cleanup);

const entries: DiffEntry[] = [
  { pointer: '/a', depth: 1, label: 'a', change: 'changed', container: { unchanged: 2 } },
  { pointer: '/a/x', depth: 2, label: 'x', change: 'changed', before: { value: 1 }, after: { value: 2 } },
  { pointer: '/a/y', depth: 2, label: 'y', change: 'added', after: { value: 'new' } },
  { pointer: '/z', depth: 1, label: 'z', change: 'removed', before: { value: true } },
];
const result: DiffResult = {
  entries,
  counts: { added: 1, removed: 1, changed: 1 },
  truncated: false,
  patch: { a: { x: 2, y: 'new' }, z: null },
  storedPatch: null,
  cli: 'stateflow diff global@1 global@2',
};

describe('DiffRow', () => {
  it('writes a change as before → after with its sign', () => {
    const row = render(<DiffRow entry={entries[1]!} />).container;
    expect(row.textContent).toBe('~ x: 1 → 2 (changed)');
    expect(row.querySelector('.before')?.textContent).toBe('1');
    expect(row.querySelector('.after')?.textContent).toBe('2');
  });

  it('writes only the after of an addition, only the before of a removal, and a container with its collapsed count', () => {
    expect(render(<DiffRow entry={entries[2]!} />).container.textContent).toBe('+ y: "new" (added)');
    expect(render(<DiffRow entry={entries[3]!} />).container.textContent).toBe('− z: true (removed)');
    expect(render(<DiffRow entry={entries[0]!} />).container.textContent).toBe('~ a (2 unchanged collapsed) (changed)');
  });
});

describe('DiffBody', () => {
  it('shows the CLI command and the patch in patch mode', () => {
    const view = render(<DiffBody result={result} show={{ added: true, removed: true, changed: true }} mode="patch" />);
    expect(view.getByTestId('diff-cli').textContent).toBe('stateflow diff global@1 global@2');
    expect(JSON.parse(view.getByTestId('diff-patch').textContent ?? '')).toEqual(result.patch);
  });

  it('prefers the stored patch, says when nothing passes the filters, and when the diff was cut', () => {
    const stored = { ...result, storedPatch: { z: null }, truncated: true };
    const patch = render(<DiffBody result={stored} show={{ added: true, removed: true, changed: true }} mode="patch" />);
    expect(JSON.parse(patch.getByTestId('diff-patch').textContent ?? '')).toEqual({ z: null });
    expect(patch.getByText('The diff was cut at 4 entries.')).toBeTruthy();
    cleanup();
    const none = render(<DiffBody result={{ ...result, entries: entries.slice(1) }} show={{ added: false, removed: false, changed: false }} mode="structural" />);
    expect(none.getByText('No differences.')).toBeTruthy();
  });
});

describe('DiffControls', () => {
  const props = (extra: Partial<DiffControlsProps> = {}): DiffControlsProps => ({
    unit: 'revision',
    a: 3,
    b: 4,
    streamB: '',
    onA: vi.fn(),
    onB: vi.fn(),
    onStreamB: vi.fn(),
    show: { added: true, removed: true, changed: true },
    onShow: vi.fn(),
    mode: 'structural',
    onMode: vi.fn(),
    result,
    ...extra,
  });

  it('hands out the sides as numbers, the filters and the mode', () => {
    const p = props();
    const view = render(<DiffControls {...p} />);
    fireEvent.input(view.getByTestId('diff-a'), { target: { value: '7' } });
    fireEvent.input(view.getByTestId('diff-b'), { target: { value: '9' } });
    fireEvent.click(view.getByLabelText(/removed \(1\)/));
    fireEvent.click(view.getByTestId('diff-mode-patch'));
    expect(p.onA).toHaveBeenCalledWith(7);
    expect(p.onB).toHaveBeenCalledWith(9);
    expect(p.onShow).toHaveBeenCalledWith({ added: true, removed: false, changed: true });
    expect(p.onMode).toHaveBeenCalledWith('patch');
    expect(view.getByText('B from stream (fork vs source)')).toBeTruthy();
  });

  it('offers no stream B for the effective view, and labels the sides by seq', () => {
    const view = render(<DiffControls {...props({ unit: 'seq' })} />);
    expect(view.queryByText('B from stream (fork vs source)')).toBeNull();
    expect(view.getByText('A (seq)')).toBeTruthy();
  });
});

describe('diffQuery', () => {
  it('asks a stream diff with its stream B when given, and an effective diff by scopes', () => {
    expect(diffQuery({ type: 'stream', stream: 'global' }, 1, 2, ' cwd:/p ')).toBe('?stream=global&streamB=cwd%3A%2Fp&a=1&b=2');
    expect(diffQuery({ type: 'stream', stream: 'global' }, 1, 2, '  ')).toBe('?stream=global&a=1&b=2');
    expect(diffQuery({ type: 'effective', global: true, cwd: '', session: 's1' }, 5, 6, '')).toBe('?global=true&session=s1&a=5&b=6');
  });
});
