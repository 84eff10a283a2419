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
          if (r !== undefined) return <RevisionItem row={r} atCursor={rev === props.rev} stream={props.stream} />;
          ensure(rev);
          return <div class="rev-row muted">rev {rev} …</div>;
        }}
      />
    </section>
  );
}

/**
 * One revision: its number, seq and time, its meta's keys as badges, the shape version it was
 * written in (of `stream`), the MCP tool call that wrote it (`meta.writer.tool`), how many streams its transition changed, and whether the cursor is on it.
 */
export function RevisionItem(props: { row: RevisionRow; atCursor: boolean; stream?: string }) {
  const r = props.row;
  const shape = props.stream === undefined ? null : shapeVersion(r, props.stream);
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
      {shape !== null && (
        <span class="badge" data-testid="shape-version" title="the shape version this revision was written in">
          {shape}
        </span>
      )}
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

/**
 * The shape version a revision of `stream` was written in, from its transition's
 * `meta.shape[stream]` (the store records it for every stream a shape governs): `shape NAME vN`,
 * or `null` when none is recorded (no shape governed the stream then: version 0).
 */
export function shapeVersion(row: RevisionRow, stream: string): string | null {
  const recorded = row.meta?.['shape'];
  if (recorded === null || typeof recorded !== 'object' || Array.isArray(recorded)) return null;
  const entry = Object.prototype.hasOwnProperty.call(recorded, stream) ? recorded[stream] : undefined;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return null;
  const { name, version } = entry;
  return typeof name === 'string' && typeof version === 'number' ? `shape ${name} v${version}` : null;
}
