/**
 * The URL fragment as a permalink of what the page shows: the selection (a stream, or the
 * effective view of global + cwd + session), the cursor seq, the tab and the pointer whose
 * history is shown. Pure reading and writing, so the format is tested without a page.
 */
import type { Selection } from './types.js';

/** The centre's views. */
export type Tab = 'tree' | 'diff' | 'history' | 'revisions' | 'slates' | 'merge' | 'undo' | 'search' | 'lineage' | 'steps' | 'audit';

/** The time cursor's x axis: wall time, the seq, or the transitions' meta dates. */
export type Axis = 'time' | 'seq' | 'date';

const AXES: readonly Axis[] = ['time', 'seq', 'date'];

/** What a permalink holds (`null`: not given). */
export interface Permalink {
  selection: Selection | null;
  seq: number | null;
  tab: Tab;
  pointer: string | null;
  /** The axis picked (`null`: the page's default). */
  axis?: Axis | null;
}

/** The permalink in `hash` (`#stream=…&seq=…&tab=…&pointer=…`, or `#effective=1&global=1&cwd=…&session=…`). */
export function readPermalink(hash: string): Permalink {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const stream = p.get('stream');
  const effective = p.get('effective');
  const selection: Selection | null =
    stream !== null
      ? { type: 'stream', stream }
      : effective !== null
        ? { type: 'effective', global: p.get('global') === '1', cwd: p.get('cwd') ?? '', session: p.get('session') ?? '' }
        : null;
  const seq = p.get('seq');
  const tab = (p.get('tab') ?? 'tree') as Tab;
  const axis = p.get('axis') as Axis | null;
  return { selection, seq: seq === null ? null : Number(seq), tab, pointer: p.get('pointer'), axis: axis !== null && AXES.includes(axis) ? axis : null };
}

/** The fragment (without `#`) of `link`; the inverse of {@link readPermalink}. Defaults are left out. */
export function permalinkHash(link: Permalink): string {
  const p = new URLSearchParams();
  if (link.selection?.type === 'stream') p.set('stream', link.selection.stream);
  if (link.selection?.type === 'effective') {
    p.set('effective', '1');
    if (link.selection.global) p.set('global', '1');
    if (link.selection.cwd !== '') p.set('cwd', link.selection.cwd);
    if (link.selection.session !== '') p.set('session', link.selection.session);
  }
  if (link.seq !== null) p.set('seq', String(link.seq));
  if (link.tab !== 'tree') p.set('tab', link.tab);
  if (link.pointer !== null) p.set('pointer', link.pointer);
  if (link.axis !== undefined && link.axis !== null) p.set('axis', link.axis);
  return p.toString();
}
