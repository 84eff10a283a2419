// @vitest-environment happy-dom
/** The parts of the inspector, the slates view, the streams rail, the time cursor and the guarded actions. */
import { cleanup, fireEvent, render } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api.js';
import { failureText } from './action-requests.js';
import { ActionMessage } from './actions.js';
import { CallDiff } from './call-diff.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { seqAfterKey } from './cursor-scale.js';
import { EffectiveForm } from './effective-form.js';
import { HashLink, verdictText } from './hash-link.js';
import { HistogramBars } from './histogram-bars.js';
import { TransitionFacts } from './inspector.js';
import { PathChangeRow } from './path-history.js';
import { RevisionItem } from './revisions.js';
import { SlateFolder } from './slate-folder.js';
import { railRows } from './stream-groups.js';
import { StreamItem } from './streams-rail.js';
import { CursorLabel } from './time-cursor.js';
import type { Histogram, InspectedTransition, SlateView, StreamRow } from './types.js';

afterEach(cleanup);

const H = 'a'.repeat(64);
const P = 'b'.repeat(64);

describe('the inspector', () => {
  const t: InspectedTransition = {
    seq: 5,
    time: '2026-12-01T10:00:00.000Z',
    id: 'op-1',
    meta: { tool: 'write_state' },
    changes: [
      { stream: 'global', rev: 3, patch: { a: 1 } },
      { stream: 'cwd:/p', rev: 8, patch: { b: null } },
    ],
    link: { prevHash: P, hash: H, previous: P, verified: true },
  } as InspectedTransition;

  it('shows the facts, every changed stream with its patch, and the verified link', () => {
    const view = render(<TransitionFacts t={t} />);
    expect(view.getByTestId('inspector-seq').textContent).toBe('5');
    expect(view.getByText('op-1')).toBeTruthy();
    expect(view.container.querySelector('ul.meta li')?.textContent).toBe('tool "write_state"');
    expect(view.getByText('Changed streams (2)')).toBeTruthy();
    expect(view.getAllByTestId('inspector-patch').map((p) => JSON.parse(p.textContent ?? ''))).toEqual([{ a: 1 }, { b: null }]);
    expect(view.getByTestId('hash-verified').textContent).toBe('✓ verified: prevHash is the hash of seq 4');
    expect(view.getByText('stateflow show 5')).toBeTruthy();
  });

  it('says what the check of a link found', () => {
    expect(verdictText(1, true)).toBe('✓ verified: the first transition (prevHash is 64 zeros)');
    expect(verdictText(9, false)).toBe('✗ prevHash does not match the previous transition');
    expect(verdictText(9, null)).toBe('previous transition compacted or not visible');
    const bad = render(<HashLink seq={9} link={{ prevHash: P, hash: H, previous: H, verified: false }} />);
    expect(bad.getByTestId('hash-verified').className).toBe('badge bad');
    cleanup();
    const hidden = render(<HashLink seq={9} link={null} />);
    expect(hidden.container.textContent).toContain('changed streams you cannot see');
  });
});

describe('the slates view', () => {
  it('shows each file with its contents, metatags and system metatags', () => {
    const folder: SlateView['folders'][number] = {
      path: '/notes',
      files: [
        { name: 'a.md', contents: 'hello', truncated: true, metatags: { tag: 'x' }, system: { size: 5, tokens: 2, created: 'c', modified: 'm', lastRead: 'r' } },
        { name: 'b.md', contents: '', truncated: false, metatags: {}, system: { size: 0, tokens: 0, created: 'c', modified: 'm' } },
      ],
    };
    const view = render(<SlateFolder folder={folder} />);
    const rows = [...view.container.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual([
      ['a.md', 'hello…', '{"tag":"x"}', 'size 5 B · 2 tokenscreated cmodified mlast read r'],
      ['b.md', '(empty)', 'none', 'size 0 B · 0 tokenscreated cmodified m'],
    ]);
  });

  it("lists the leaves a call changed, and says when that is not known", () => {
    const call = {
      entries: [
        { pointer: '/s/f', depth: 1, label: 'f', change: 'changed' as const, container: { unchanged: 0 } },
        { pointer: '/s/f/contents', depth: 2, label: 'contents', change: 'changed' as const, before: { value: 'a' }, after: { value: 'b' } },
      ],
      counts: { added: 0, removed: 0, changed: 1 },
      truncated: false,
    };
    const view = render(<CallDiff rev={4} call={call} />);
    expect([...view.getByTestId('slates-call-diff').children].map((li) => li.textContent)).toEqual(['~ /s/f/contents: "a" → "b"']);
    cleanup();
    expect(render(<CallDiff rev={1} call={null} />).container.textContent).toContain('Not known');
  });
});

describe('the streams rail', () => {
  const row = (stream: string, kind: StreamRow['kind'], extra: Partial<StreamRow> = {}): StreamRow => ({ stream, kind, rev: 2, origin: 0, time: '2026-12-01T10:00:00.000Z', ...extra }) as StreamRow;
  it('groups the streams by kind in a fixed order, leaving empty kinds out', () => {
    const counts = { global: 1, cwd: 2, session: 0, slate: 1, 'ladder-session': 0, other: 0 };
    const rows = railRows([row('slate:s', 'slate'), row('cwd:/b', 'cwd'), row('global', 'global'), row('cwd:/a', 'cwd')], counts);
    expect(rows.map((r) => (r.type === 'group' ? `# ${r.kind} ${r.count}` : r.row.stream))).toEqual(['# global 1', 'global', '# cwd 2', 'cwd:/b', 'cwd:/a', '# slate 1', 'slate:s']);
    expect(railRows([], null)).toEqual([]);
  });

  it("shows a stream's revision and origin, marked when selected", () => {
    const view = render(<StreamItem stream={row('cwd:/p', 'cwd', { rev: 12, origin: 4 })} selected />);
    const item = view.container.querySelector('[data-stream="cwd:/p"]');
    expect(item?.className).toBe('stream selected');
    expect(item?.textContent).toMatch(/^cwd:\/prev 12 · origin 4 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('selects the effective view of the scopes given, trimmed', () => {
    const onSelect = vi.fn();
    const view = render(<EffectiveForm onSelect={onSelect} selection={null} />);
    fireEvent.input(view.getByTestId('effective-cwd'), { target: { value: ' /proj ' } });
    fireEvent.submit(view.getByTestId('effective-cwd').closest('form')!);
    expect(onSelect).toHaveBeenCalledWith({ type: 'effective', global: true, cwd: '/proj', session: '' });
  });
});

describe('the time cursor', () => {
  const h: Histogram = {
    lastSeq: 40,
    firstSeq: 11,
    stream: null,
    axis: 'time',
    buckets: [0, 1, 2, 3].map((i) => ({ start: `2026-12-01T10:0${i}:00.000Z`, end: `2026-12-01T10:0${i + 1}:00.000Z`, fromSeq: 11 + i * 8, toSeq: 18 + i * 8, count: i === 2 ? 0 : 8 })),
  };

  it('moves by one, by about a bucket, to the ends, and stays within the retained seqs', () => {
    expect(seqAfterKey(h, 20, 'ArrowRight')).toBe(21);
    expect(seqAfterKey(h, 20, 'ArrowDown')).toBe(19);
    expect(seqAfterKey(h, 20, 'PageUp')).toBe(30);
    expect(seqAfterKey(h, 12, 'PageDown')).toBe(11);
    expect(seqAfterKey(h, 20, 'End')).toBe(40);
    expect(seqAfterKey(h, 40, 'ArrowUp')).toBe(40);
    expect(seqAfterKey(h, 20, 'Home')).toBe(11);
    expect(seqAfterKey(h, 20, 'a')).toBeNull();
  });

  it('labels the seq and the compacted seqs, and hands out the axis chosen', () => {
    const onAxis = vi.fn();
    const view = render(<CursorLabel histogram={h} seq={20} axis="time" onAxis={onAxis} />);
    expect(view.getByTestId('cursor-seq').textContent).toBe('as of seq 20');
    expect(view.getByText('· seqs 1–10 compacted')).toBeTruthy();
    fireEvent.click(view.getByTestId('axis-seq'));
    expect(onAxis).toHaveBeenCalledWith('seq');
  });

  it('draws a bar per bucket by count (none for an empty one), the hatched edge and the cursor', () => {
    const svg = render(<HistogramBars histogram={h} x={250} svgRef={{ current: null }} />).container;
    expect([...svg.querySelectorAll('rect.bar')].map((r) => Number(r.getAttribute('height')))).toEqual([52, 52, 0, 52]);
    expect(svg.querySelector('rect.bar title')?.textContent).toMatch(/^8 transitions, seq 11–18, /);
    expect(svg.querySelector('rect[fill="url(#hatch)"]')).not.toBeNull();
    expect(svg.querySelector('.cursor-line')?.getAttribute('x1')).toBe('250');
  });
});

describe('the guarded actions', () => {
  it('shows the patch it would publish, and publishes or cancels', () => {
    const onConfirm = vi.fn();
    const onCancel = vi.fn();
    const view = render(
      <ConfirmDialog title="Revert global to revision 2?" patch={{ a: null }} onConfirm={onConfirm} onCancel={onCancel}>
        expecting the head to still be revision 5
      </ConfirmDialog>,
    );
    expect(view.getByRole('dialog').getAttribute('aria-labelledby')).toBe('confirm-title');
    expect(JSON.parse(view.getByTestId('confirm-patch').textContent ?? '')).toEqual({ a: null });
    fireEvent.click(view.getByTestId('confirm-yes'));
    fireEvent.click(view.getByText('Cancel'));
    expect([onConfirm.mock.calls.length, onCancel.mock.calls.length]).toEqual([1, 1]);
  });

  it('explains a conflict (nothing published), and shows other failures as they are', () => {
    expect(failureText(new ApiError(409, 'CONFLICT', 'global is at 6'), 5)).toBe(
      'Conflict: global is at 6. The stream changed since this page showed revision 5; nothing was published. Reload the stream to see its new head.',
    );
    expect(failureText(new ApiError(403, 'FORBIDDEN', 'no write access'), 5)).toBe('no write access');
    const alert = render(<ActionMessage text="no" error />);
    expect(alert.getByTestId('action-message').getAttribute('role')).toBe('alert');
  });
});

describe('the path history and the revisions', () => {
  it('writes a change of the path as rev, seq, old → new', () => {
    const change = { rev: 7, seq: 30, time: '2026-12-01T10:00:00.000Z', change: 'changed' as const, before: { value: '1.0.0' }, after: { value: '1.1.0' } };
    const row = render(<PathChangeRow change={change} />).container.querySelector('[data-rev="7"]');
    expect(row?.className).toBe('ph-row changed');
    expect(row?.textContent).toMatch(/^~ rev 7 seq 30 · .+ "1\.0\.0" → "1\.1\.0"$/);
  });

  it("writes a revision with its meta's keys, its streams and the cursor mark", () => {
    const r = { rev: 4, seq: 12, time: '2026-12-01T10:00:00.000Z', meta: { fork: { from: 'global', rev: 2 } }, streams: 2 };
    const view = render(<RevisionItem row={r} atCursor />);
    expect([...view.container.querySelectorAll('.badge')].map((b) => b.textContent)).toEqual(['fork', '2 streams', 'at cursor']);
    expect(view.container.querySelector('[data-rev="4"]')?.className).toBe('rev-row at-cursor');
  });
});
