/**
 * A stream's revisions, newest last: a virtualised list of every retained revision, fetched in
 * pages of 200 as they scroll into view (the server pages by revision, so any part of a 100k
 * revision log loads in one request). Activating a row moves the cursor to its transition.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import { timeText } from './format.js';
import type { RevisionPage, RevisionRow } from './types.js';
import { VirtualList } from './virtual-list.js';

const PAGE = 200;

export interface RevisionsProps {
  stream: string;
  head: number;
  origin: number;
  /** Revision at the cursor (highlighted). */
  rev: number | null;
  onSeq: (seq: number) => void;
}

export function Revisions(props: RevisionsProps) {
  const [rows, setRows] = useState<Map<number, RevisionRow>>(new Map());
  const requested = useRef(new Set<number>());
  useEffect(() => {
    setRows(new Map());
    requested.current = new Set();
  }, [props.stream]);

  const first = props.origin + 1;
  const count = Math.max(0, props.head - props.origin);
  const ensure = (rev: number) => {
    const start = first + Math.floor((rev - first) / PAGE) * PAGE;
    if (requested.current.has(start)) return;
    requested.current.add(start);
    void get<RevisionPage>(`/v1/history/revisions${query({ stream: props.stream, from: start, limit: PAGE })}`).then((page) =>
      setRows((current) => {
        const next = new Map(current);
        for (const r of page.revisions) next.set(r.rev, r);
        return next;
      }),
    );
  };

  return (
    <section class="revisions" aria-label="Revisions" data-testid="revisions">
      <h2>
        Revisions of <code>{props.stream}</code> <span class="muted small">({count} retained{props.origin > 0 ? `; 1–${props.origin} compacted` : ''})</span>
      </h2>
      <VirtualList
        label="Revisions"
        idPrefix="rev"
        testId="revision-rows"
        count={count}
        rowHeight={26}
        activeIndex={props.rev === null ? undefined : props.rev - first}
        onActivate={(i) => {
          const r = rows.get(first + i);
          if (r !== undefined) props.onSeq(r.seq);
        }}
        row={(i) => {
          const rev = first + i;
          const r = rows.get(rev);
          if (r === undefined) {
            ensure(rev);
            return <div class="rev-row muted">rev {rev} …</div>;
          }
          const tags = r.meta === undefined ? [] : Object.keys(r.meta);
          return (
            <div class={rev === props.rev ? 'rev-row at-cursor' : 'rev-row'} data-rev={rev}>
              <span class="rev">rev {rev}</span> <span class="muted small">seq {r.seq} · {timeText(r.time)}</span>
              {tags.map((t) => (
                <span class="badge" key={t}>
                  {t}
                </span>
              ))}
              {r.streams > 1 && <span class="badge">{r.streams} streams</span>}
              {rev === props.rev && <span class="badge">at cursor</span>}
            </div>
          );
        }}
      />
    </section>
  );
}
