/**
 * The streams rail: every visible stream grouped by kind, with head revision, last change time and
 * origin; a filter box (server-side filter, paged); and a form for the effective view of a
 * selection (global + cwd + session).
 *
 * Parts: the data (use-streams.ts), the grouping (stream-groups.ts), the effective view's form
 * (effective-form.tsx).
 */
import { useMemo, useState } from 'preact/hooks';
import { EffectiveForm } from './effective-form.js';
import { timeText } from './format.js';
import { KIND_TITLE, railRows, type RailRow } from './stream-groups.js';
import { MiddleCut } from './middle-cut.js';
import type { Selection, StreamRow } from './types.js';
import { useStreams } from './use-streams.js';
import { VirtualList } from './virtual-list.js';

export interface StreamsRailProps {
  selection: Selection | null;
  onSelect: (selection: Selection) => void;
  /** Changes when the store changed (refetch). */
  version: number;
}

export function StreamsRail(props: StreamsRailProps) {
  const [filter, setFilter] = useState('');
  const streams = useStreams(filter, props.version);
  const list = useMemo<RailRow[]>(() => railRows(streams.rows, streams.page?.counts ?? null), [streams.rows, streams.page]);
  const selected = props.selection?.type === 'stream' ? props.selection.stream : null;
  const activeIndex = list.findIndex((r) => r.type === 'stream' && r.row.stream === selected);

  return (
    <nav class="rail" aria-label="Streams">
      <label class="field">
        <span>Filter streams</span>
        <input type="search" value={filter} placeholder="e.g. cwd:/proj" onInput={(e) => setFilter((e.target as HTMLInputElement).value)} data-testid="stream-filter" />
      </label>
      {streams.error !== null && <p role="alert" class="error">{streams.error}</p>}
      <VirtualList
        label="Streams by kind"
        idPrefix="stream"
        testId="streams"
        count={list.length}
        rowHeight={44}
        activeIndex={activeIndex}
        onReachEnd={streams.more}
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
          return <StreamItem stream={r.row} selected={r.row.stream === selected} />;
        }}
      />
      <EffectiveForm onSelect={props.onSelect} selection={props.selection} />
    </nav>
  );
}

/** A stream's row: its name, head revision, origin (when compacted) and last change time. */
export function StreamItem(props: { stream: StreamRow; selected: boolean }) {
  const s = props.stream;
  return (
    <div class={props.selected ? 'stream selected' : 'stream'} data-stream={s.stream} title={s.stream}>
      <div class="stream-id">
        <MiddleCut text={s.stream} max={36} />
      </div>
      <div class="muted small">
        rev {s.rev}
        {s.origin > 0 ? ` · origin ${s.origin}` : ''} · {timeText(s.time)}
      </div>
    </div>
  );
}
