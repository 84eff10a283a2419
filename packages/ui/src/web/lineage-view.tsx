/**
 * The lineage of a stream (`GET /v1/history/lineage`): a small graph of its forks, merges and
 * reverts, from the `fork` / `merge` / `revert` records of transition meta. One lane per stream
 * (the stream itself, the streams it took in, the streams forked from it), one mark per record in
 * seq order, an arrow from the source revision to the stream it went into. A click on a fork or a
 * merge moves the cursor to its source revision (the fork point) in the source stream; on a
 * revert, to the revert itself. Every mark is also a button in the list under the graph.
 */
import { get, query } from './api.js';
import { timeText } from './format.js';
import { middleCut } from './middle-cut.js';
import type { LineageEvent, LineageGraph } from './types.js';
import { useLoaded } from './use-loaded.js';

const LANE = 34;
const LEFT = 230;
const STEP = 70;

/** Where a click on `event` goes: the source revision of a fork or merge, or the event itself. */
export async function jumpTarget(event: LineageEvent): Promise<{ stream: string; seq: number }> {
  if (event.from === undefined || event.from.rev === 0) return { stream: event.stream, seq: event.seq };
  const { seq } = await get<{ seq: number }>(`/v1/store/revision-seq${query({ stream: event.from.stream, rev: event.from.rev })}`);
  return { stream: event.from.stream, seq };
}

function eventLabel(e: LineageEvent): string {
  if (e.kind === 'revert') return `${e.stream} rev ${e.rev}: reverted to rev ${e.to ?? '?'}`;
  return `${e.stream} rev ${e.rev}: ${e.kind === 'fork' ? 'forked from' : 'merged'} ${e.from?.stream ?? '?'} rev ${e.from?.rev ?? '?'}`;
}

export function LineageView(props: { stream: string; onJump: (stream: string, seq: number) => void }) {
  const loaded = useLoaded((signal) => get<LineageGraph>(`/v1/history/lineage${query({ stream: props.stream })}`, signal), [props.stream]);
  const graph = loaded.value;
  if (loaded.error !== null) return <p role="alert" class="error">{loaded.error.message}</p>;
  if (graph === null) return <p class="muted">Loading the lineage…</p>;
  const jump = (event: LineageEvent) => void jumpTarget(event).then((t) => props.onJump(t.stream, t.seq));
  if (graph.events.length === 0) return <p class="muted" data-testid="lineage-empty">No fork, merge or revert involves {props.stream}.</p>;
  return (
    <section class="lineage" aria-label="Lineage" data-testid="lineage">
      <LineageGraphDrawing graph={graph} onEvent={jump} />
      <ol class="lineage-events">
        {graph.events.map((e) => (
          <li key={e.seq}>
            <button type="button" class={`lineage-event kind-${e.kind}`} onClick={() => jump(e)} data-testid="lineage-event" data-kind={e.kind} data-seq={e.seq}>
              {eventLabel(e)}
            </button>{' '}
            <span class="muted small">
              seq {e.seq} · {timeText(e.time)}
            </span>
          </li>
        ))}
      </ol>
      {graph.truncated && <p class="muted small">Some of the history was not read (a scan bound was reached): older records may be missing.</p>}
    </section>
  );
}

/** The graph: lanes, marks and arrows (an SVG; the list beside it carries the same buttons for the keyboard). */
function LineageGraphDrawing(props: { graph: LineageGraph; onEvent: (e: LineageEvent) => void }) {
  const { graph } = props;
  const lane = new Map(graph.streams.map((s, i) => [s.stream, i]));
  const width = LEFT + STEP * (graph.events.length + 1);
  const height = LANE * graph.streams.length + 10;
  const y = (stream: string) => 20 + LANE * (lane.get(stream) ?? 0);
  return (
    <svg class="lineage-graph" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={`Lineage of ${graph.stream}`}>
      {graph.streams.map((s) => (
        <g key={s.stream}>
          <text x={4} y={y(s.stream) + 4} class={s.relation === 'self' ? 'lane-name self' : 'lane-name'}>
            {middleCut(s.stream, 28)}
            <title>{`${s.stream} (${s.relation}, head rev ${s.head})`}</title>
          </text>
          <line x1={LEFT - 10} x2={width - 10} y1={y(s.stream)} y2={y(s.stream)} class="lane" />
        </g>
      ))}
      {graph.events.map((e, i) => {
        const x = LEFT + STEP * (i + 0.5);
        const source = e.from === undefined ? null : y(e.from.stream);
        return (
          <g key={e.seq} class={`mark kind-${e.kind}`} onClick={() => props.onEvent(e)} data-testid="lineage-mark" data-seq={e.seq}>
            {source !== null && lane.has(e.from?.stream ?? '') && (
              <>
                <line x1={x - STEP / 2} y1={source} x2={x} y2={y(e.stream)} class="edge" />
                <text x={x - STEP / 2} y={source + 14} text-anchor="middle" class="mark-label">
                  r{e.from?.rev}
                </text>
              </>
            )}
            <circle cx={x} cy={y(e.stream)} r={7} />
            <text x={x} y={y(e.stream) - 10} text-anchor="middle" class="mark-label">
              {e.kind} r{e.rev}
            </text>
            <title>{eventLabel(e)}</title>
          </g>
        );
      })}
    </svg>
  );
}
