/**
 * The streams rail: every visible stream grouped by kind, with head revision, last change time and
 * origin; a filter box (server-side filter, paged); and a form for the effective view of a
 * selection (global + cwd + session).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { get, query } from './api.js';
import { timeText } from './format.js';
import type { Selection, StreamKind, StreamPage, StreamRow } from './types.js';
import { VirtualList } from './virtual-list.js';

const KIND_ORDER: StreamKind[] = ['global', 'cwd', 'session', 'slate', 'ladder-session', 'other'];
const KIND_TITLE: Record<StreamKind, string> = {
  global: 'global',
  cwd: 'cwd:*',
  session: 'session:*',
  slate: 'slate:*',
  'ladder-session': 'ladder-session:*',
  other: 'other',
};

type Row = { type: 'group'; kind: StreamKind; count: number } | { type: 'stream'; row: StreamRow };

export interface StreamsRailProps {
  selection: Selection | null;
  onSelect: (selection: Selection) => void;
  /** Changes when the store changed (refetch). */
  version: number;
}

export function StreamsRail(props: StreamsRailProps) {
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState<StreamPage | null>(null);
  const [rows, setRows] = useState<StreamRow[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      get<StreamPage>(`/v1/history/streams${query({ filter: filter === '' ? undefined : filter, limit: 200 })}`, controller.signal)
        .then((p) => {
          setPage(p);
          setRows(p.streams);
          setError(null);
        })
        .catch((err: Error) => controller.signal.aborted || setError(err.message));
    }, 150);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [filter, props.version]);

  const more = () => {
    if (page?.next == null || loading) return;
    setLoading(true);
    get<StreamPage>(`/v1/history/streams${query({ filter: filter === '' ? undefined : filter, after: page.next, limit: 200 })}`)
      .then((p) => {
        setPage(p);
        setRows((r) => [...r, ...p.streams]);
      })
      .finally(() => setLoading(false));
  };

  const list = useMemo<Row[]>(() => {
    const out: Row[] = [];
    for (const kind of KIND_ORDER) {
      const count = page?.counts[kind] ?? 0;
      if (count === 0) continue;
      out.push({ type: 'group', kind, count });
      for (const row of rows) if (row.kind === kind) out.push({ type: 'stream', row });
    }
    return out;
  }, [rows, page]);

  const selected = props.selection?.type === 'stream' ? props.selection.stream : null;
  const activeIndex = list.findIndex((r) => r.type === 'stream' && r.row.stream === selected);

  return (
    <nav class="rail" aria-label="Streams">
      <label class="field">
        <span>Filter streams</span>
        <input type="search" value={filter} placeholder="e.g. cwd:/proj" onInput={(e) => setFilter((e.target as HTMLInputElement).value)} data-testid="stream-filter" />
      </label>
      {error !== null && <p role="alert" class="error">{error}</p>}
      <VirtualList
        label="Streams by kind"
        idPrefix="stream"
        testId="streams"
        count={list.length}
        rowHeight={44}
        activeIndex={activeIndex}
        onReachEnd={more}
        onActivate={(i) => {
          const r = list[i];
          if (r?.type === 'stream') props.onSelect({ type: 'stream', stream: r.row.stream });
        }}
        row={(i) => {
          const r = list[i];
          if (r === undefined) return null;
          if (r.type === 'group') {
            return (
              <div class="group" aria-label={`${KIND_TITLE[r.kind]}: ${r.count} streams`}>
                {KIND_TITLE[r.kind]} <span class="muted">({r.count})</span>
              </div>
            );
          }
          const s = r.row;
          return (
            <div class={s.stream === selected ? 'stream selected' : 'stream'} data-stream={s.stream} title={s.stream}>
              <div class="stream-id">{s.stream}</div>
              <div class="muted small">
                rev {s.rev}
                {s.origin > 0 ? ` · origin ${s.origin}` : ''} · {timeText(s.time)}
              </div>
            </div>
          );
        }}
      />
      <EffectiveForm onSelect={props.onSelect} selection={props.selection} />
    </nav>
  );
}

function EffectiveForm(props: { onSelect: (s: Selection) => void; selection: Selection | null }) {
  const current = props.selection?.type === 'effective' ? props.selection : null;
  const [global, setGlobal] = useState(current?.global ?? true);
  const [cwd, setCwd] = useState(current?.cwd ?? '');
  const [session, setSession] = useState(current?.session ?? '');
  return (
    <form
      class="effective-form"
      aria-label="Effective view"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSelect({ type: 'effective', global, cwd: cwd.trim(), session: session.trim() });
      }}
    >
      <strong>Effective view</strong>
      <label class="check">
        <input type="checkbox" checked={global} onChange={(e) => setGlobal((e.target as HTMLInputElement).checked)} /> global
      </label>
      <label class="field">
        <span>cwd</span>
        <input value={cwd} placeholder="/abs/dir" onInput={(e) => setCwd((e.target as HTMLInputElement).value)} data-testid="effective-cwd" />
      </label>
      <label class="field">
        <span>session</span>
        <input value={session} placeholder="session id" onInput={(e) => setSession((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Show effective view</button>
    </form>
  );
}
