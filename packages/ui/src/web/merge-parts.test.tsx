// @vitest-environment happy-dom
/** The merge view's parts: the patch rows, the resolutions, the conflicts table, the summary, the failure texts. */
import { cleanup, fireEvent, render } from '@testing-library/preact';
import { useState } from 'preact/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './api.js';
import { MergeConflicts } from './merge-conflicts.js';
import { patchRows, resolutions, valueAt, type Choice } from './merge-plan.js';
import { mergeFailureText, nothingToMerge, type MergePreview } from './merge-requests.js';
import { MergeSummary } from './merge-summary.js';
import type { MergeConflict } from './types.js';

afterEach(cleanup);

const state = { a: { b: 1, 'x/y': [1, 2] }, s: 'old', o: { k: true } };

describe('valueAt', () => {
  it('follows RFC 6901 pointers through objects and arrays, escapes included', () => {
    expect(valueAt(state, '/a/b')).toBe(1);
    expect(valueAt(state, '/a/x~1y/1')).toBe(2);
    expect(valueAt(state, '')).toEqual(state);
    expect(valueAt(state, '/a/x~1y/01')).toBeUndefined();
    expect(valueAt(state, '/s/length')).toBeUndefined();
    expect(valueAt(state, '/nope')).toBeUndefined();
  });
});

describe('patchRows', () => {
  it("lists each leaf of the merge patch with into's value before it", () => {
    const rows = patchRows({ a: { b: 2, c: 'new', 'x/y': null }, s: null, gone: null, o: {}, n: {} }, state);
    expect(rows.map((r) => [r.pointer, r.change, r.before, r.after])).toEqual([
      ['/a/b', 'changed', { value: 1 }, { value: 2 }],
      ['/a/c', 'added', { absent: true }, { value: 'new' }],
      ['/a/x~1y', 'removed', { value: [1, 2] }, { absent: true }],
      ['/s', 'removed', { value: 'old' }, { absent: true }],
      ['/n', 'added', { absent: true }, { value: {} }],
    ]);
  });

  it('reads a patch object over a scalar as additions under it', () => {
    expect(patchRows({ s: { t: 1 } }, state).map((r) => [r.pointer, r.change])).toEqual([['/s/t', 'added']]);
  });
});

describe('resolutions', () => {
  it('maps the choices to the resolve map: a side, or the JSON value (null deletes)', () => {
    expect(resolutions(['/a', '/b', '/c'], { '/a': { side: 'ours' }, '/b': { text: '{"v": [1]}' }, '/c': { text: 'null' } })).toEqual({
      resolve: { '/a': 'ours', '/b': { value: { v: [1] } }, '/c': { value: null } },
    });
  });

  it('names each path without a choice and each value that is not JSON', () => {
    expect(resolutions(['/a', '/b', '/c'], { '/b': { text: 'plain words' }, '/c': { side: 'theirs' } })).toEqual({
      problems: ['/a: choose ours, theirs or a value', '/b: the value is not JSON (write "text" with quotes, null to delete)'],
    });
  });
});

const conflicts: MergeConflict[] = [
  { path: '/version', base: '1.0.0', ours: '1.1.0', theirs: '2.0.0' },
  { path: '/author', base: 'P1', ours: 'P2', theirs: null },
];

describe('MergeConflicts', () => {
  function Harness() {
    const [choices, setChoices] = useState<Record<string, Choice>>({});
    return (
      <>
        <MergeConflicts conflicts={conflicts} choices={choices} onChoose={(path, c) => setChoices((all) => ({ ...all, [path]: c }))} />
        <output data-testid="choices">{JSON.stringify(choices)}</output>
      </>
    );
  }

  it('shows base, ours and theirs of each conflict, a deletion as absent', () => {
    const view = render(<Harness />);
    const cells = [...view.container.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('th, td')].slice(0, 4).map((c) => c.textContent));
    expect(cells).toEqual([
      ['/version', '"1.0.0"', '"1.1.0"', '"2.0.0"'],
      ['/author', '"P1"', '"P2"', '(absent)'],
    ]);
    expect(view.container.querySelector('caption')?.textContent).toContain('2 conflicts');
  });

  it('takes a side, or a value that starts from theirs and is edited', () => {
    const view = render(<Harness />);
    const [version, author] = [...view.container.querySelectorAll('tbody tr')];
    fireEvent.click(author!.querySelector('[data-testid="pick-ours"]')!);
    fireEvent.click(version!.querySelector('[data-testid="pick-value"]')!);
    const text = version!.querySelector('[data-testid="pick-value-text"]') as HTMLTextAreaElement;
    expect(text.value).toBe('"2.0.0"');
    fireEvent.input(text, { target: { value: '"2.1.0"' } });
    expect(JSON.parse(view.getByTestId('choices').textContent ?? '')).toEqual({ '/author': { side: 'ours' }, '/version': { text: '"2.1.0"' } });
  });
});

const plan = (extra: Partial<MergePreview> = {}): MergePreview =>
  ({ status: 'preview', transition: null, from: 'cwd:/a', fromRev: 3, into: 'cwd:/b', intoRev: 5, base: { stream: 'cwd:/p', rev: 9 }, patch: { s: 'new' }, conflicts: [], ...extra }) as MergePreview;

describe('MergeSummary', () => {
  it('names the sides and their base, and the diff the merge would publish', () => {
    const view = render(<MergeSummary plan={plan({ conflicts })} state={state} />);
    expect(view.getByTestId('merge-sides').textContent).toBe('cwd:/a@3 into cwd:/b@5, from their merge base cwd:/p@9');
    expect(view.getByTestId('merge-diff').textContent).toBe('~ /s: "old" → "new"');
    expect(view.getByText('(besides the 2 conflicts below)')).toBeTruthy();
    expect(JSON.parse(view.getByTestId('merge-patch').textContent ?? '')).toEqual({ s: 'new' });
  });

  it('says when there is nothing to merge (a noop, or a preview with nothing in it)', () => {
    expect(nothingToMerge(plan({ patch: {} }))).toBe(true);
    expect(nothingToMerge(plan({ patch: {}, conflicts }))).toBe(false);
    const view = render(<MergeSummary plan={plan({ patch: {} })} state={state} />);
    expect(view.container.textContent).toContain('cwd:/b already holds every change of cwd:/a since the base.');
  });
});

describe('mergeFailureText', () => {
  it('explains a moved head, open conflicts and unrelated streams; other errors by code', () => {
    expect(mergeFailureText(new ApiError(409, 'CONFLICT', 'cwd:/b is at revision 6'), 'cwd:/b', 5)).toBe(
      'Conflict: cwd:/b is at revision 6. cwd:/b changed since this preview showed revision 5; nothing was published. Preview again to merge into its new head.',
    );
    expect(mergeFailureText(new ApiError(409, 'MERGE_CONFLICT', '1 conflict'), 'cwd:/b', 5)).toMatch(/^Conflicts left open: 1 conflict\. Nothing was published/);
    expect(mergeFailureText(new ApiError(422, 'MERGE_UNRELATED', 'x and y share no origin'), 'y', null)).toContain('fork one from the other first');
    expect(mergeFailureText(new ApiError(404, 'STREAM_NOT_FOUND', 'no y'), 'y', null)).toBe('STREAM_NOT_FOUND: no y');
  });
});
