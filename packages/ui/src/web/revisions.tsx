/**
 * A stream's revisions, newest last: a virtualised list of every retained revision, fetched in
 * pages of 200 as they scroll into view (the server pages by revision, so any part of a 100k
 * revision log loads in one request). Activating a row moves the cursor to its transition.
 *
 * Parts: the data (use-revision-pages.ts), a row (RevisionItem).
 */
import { timeText } from './format.js';
import type { RevisionRow } from './types.js';
import { useRevisionPages } from './use-revision-pages.js';
import { VirtualList } from './virtual-list.js';

export interface RevisionsProps {
  stream: string;
  /** Revision at the cursor (highlighted). */
  rev: number | null;
  onSeq: (seq: number) => void;
}

export function Revisions(props: RevisionsProps) {
  const { rows, first, origin, count, ensure } = useRevisionPages(props.stream, props.rev);
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
          if (r !== undefined) return <RevisionItem row={r} atCursor={rev === props.rev} />;
          ensure(rev);
          return <div class="rev-row muted">rev {rev} …</div>;
        }}
      />
    </section>
  );
}

/**
 * One revision: its number, seq and time, its meta's keys as badges, the MCP tool call that wrote
 * it (`meta.writer.tool`), how many streams its transition changed, and whether the cursor is on it.
 */
export function RevisionItem(props: { row: RevisionRow; atCursor: boolean }) {
  const r = props.row;
  const tags = r.meta === undefined ? [] : Object.keys(r.meta);
  const writer = r.meta?.['writer'];
  const tool = writer !== null && typeof writer === 'object' && !Array.isArray(writer) && typeof writer['tool'] === 'string' ? writer['tool'] : null;
  return (
    <div class={props.atCursor ? 'rev-row at-cursor' : 'rev-row'} data-rev={r.rev}>
      <span class="rev">rev {r.rev}</span> <span class="muted small">seq {r.seq} · {timeText(r.time)}</span>
      {tags.map((t) => (
        <span class="badge" key={t}>
          {t}
        </span>
      ))}
      {tool !== null && (
        <span class="badge" data-testid="tool-call">
          tool call: {tool}
        </span>
      )}
      {r.streams > 1 && <span class="badge">{r.streams} streams</span>}
      {props.atCursor && <span class="badge">at cursor</span>}
    </div>
  );
}
