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
  /** Revision at the cursor (highlighted). */
  rev: number | null;
  onSeq: (seq: number) => void;
}

export function Revisions(props: RevisionsProps) {
  const [rows, setRows] = useState<Map<number, RevisionRow>>(new Map());
  // Head and origin as the first page read them; the list's length follows from them.
  const [extent, setExtent] = useState<{ head: number; origin: number } | null>(null);
  const requested = useRef(new Set<number>());
  const current = useRef(props.stream);
  current.current = props.stream;

  const fetchPage = (from: number) => {
    requested.current.add(from);
    const stream = props.stream;
    void get<RevisionPage>(`/v1/history/revisions${query({ stream, from, limit: PAGE })}`).then((page) => {
      // A page of the stream shown before arrives late: not this list's.
      if (stream !== current.current) return;
      setExtent((e) => e ?? { head: page.head, origin: page.origin });
      setRows((shown) => {
        const next = new Map(shown);
        for (const r of page.revisions) next.set(r.rev, r);
        return next;
      });
    });
  };
  useEffect(() => {
    setRows(new Map());
    setExtent(null);
    requested.current = new Set();
    fetchPage(Math.max(1, (props.rev ?? 1) - 20));
  }, [props.stream]);

  const origin = extent?.origin ?? 0;
  const first = origin + 1;
  const count = extent === null ? 0 : Math.max(0, extent.head - origin);
  const ensure = (rev: number) => {
    const start = first + Math.floor((rev - first) / PAGE) * PAGE;
    if (!requested.current.has(start)) fetchPage(start);
  };

  return (
    <section class="revisions" aria-label="Revisions" data-testid="revisions">
      <h2>
        Revisions of <code>{props.stream}</code> <span class="muted small">({count} retained{origin > 0 ? `; 1–${origin} compacted` : ''})</span>
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
