/**
 * The time cursor: a histogram of transitions over wall time (server-side buckets) and a
 * draggable "as of seq N" cursor over it (Datomic's as-of). The cursor is a slider: arrows move
 * one transition, PageUp/PageDown one bucket, Home/End the ends. Seqs before the first retained
 * one are drawn hatched and labelled compacted.
 *
 * Parts: the scale and keys (cursor-scale.ts), the drawing (histogram-bars.tsx).
 */
import { useRef } from 'preact/hooks';
import { fractionOfSeq, seqAfterKey, seqAtFraction } from './cursor-scale.js';
import { timeText } from './format.js';
import { HistogramBars, WIDTH } from './histogram-bars.js';
import type { Histogram } from './types.js';

export { fractionOfSeq, seqAtFraction } from './cursor-scale.js';

export interface TimeCursorProps {
  histogram: Histogram | null;
  seq: number;
  onSeq: (seq: number) => void;
  /** The x axis picked (`null`: none; the histogram says the one drawn): wall time, the seq (a burst then spreads over the width), or the meta dates. */
  axis: Histogram['axis'] | null;
  onAxis: (axis: Histogram['axis']) => void;
}

export function TimeCursor(props: TimeCursorProps) {
  const svg = useRef<SVGSVGElement>(null);
  const dragging = useRef(false);
  const h = props.histogram;
  if (h === null) return <section class="cursor" aria-label="Time cursor">Loading history…</section>;
  const fromPointer = (event: PointerEvent) => {
    const rect = svg.current?.getBoundingClientRect();
    if (rect === undefined || rect.width === 0) return;
    props.onSeq(seqAtFraction(h, (event.clientX - rect.left) / rect.width));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const to = seqAfterKey(h, props.seq, event.key);
    if (to === null) return;
    event.preventDefault();
    props.onSeq(to);
  };
  return (
    <section class="cursor" aria-label="Time cursor">
      <CursorLabel histogram={h} seq={props.seq} axis={props.axis ?? h.axis} onAxis={props.onAxis} />
      <div
        class="slider"
        role="slider"
        tabIndex={0}
        aria-label="As of seq"
        aria-valuemin={Math.min(h.firstSeq, h.lastSeq)}
        aria-valuemax={h.lastSeq}
        aria-valuenow={props.seq}
        aria-valuetext={`as of seq ${props.seq} of ${h.lastSeq}`}
        data-testid="histogram"
        onKeyDown={onKeyDown}
        onPointerDown={(e) => {
          dragging.current = true;
          (e.currentTarget as Element).setPointerCapture(e.pointerId);
          fromPointer(e);
        }}
        onPointerMove={(e) => dragging.current && fromPointer(e)}
        onPointerUp={() => (dragging.current = false)}
      >
        <HistogramBars histogram={h} x={fractionOfSeq(h, props.seq) * WIDTH} svgRef={svg} />
      </div>
      <AxisEnds histogram={h} />
    </section>
  );
}

/** What each axis shows, said beside its ends. */
export const AXIS_NAME: Record<Histogram['axis'], string> = {
  time: 'time shown: when the store accepted each transition',
  seq: 'seq shown: equal runs of transitions',
  date: 'time shown: the meta date of each transition (an import: its commit date)',
};

/** The ends of the x axis: times (wall time, meta dates) or seqs (over seq), and which time it is. */
export function AxisEnds(props: { histogram: Histogram }) {
  const h = props.histogram;
  const first = h.buckets[0];
  const last = h.buckets[h.buckets.length - 1];
  const ends = h.axis === 'seq' ? [`seq ${first?.fromSeq ?? h.firstSeq}`, `seq ${last?.toSeq ?? h.lastSeq}`] : [timeText(first?.start), timeText(last?.end)];
  return (
    <div class="axis muted small" data-testid="axis-ends">
      <span>{ends[0]}</span>
      <span data-testid="axis-name">{AXIS_NAME[h.axis]}</span>
      <span>{ends[1]}</span>
    </div>
  );
}

/** "as of seq N of M", the compacted seqs, and the choice of the x axis. */
export function CursorLabel(props: { histogram: Histogram; seq: number; axis: Histogram['axis']; onAxis: (axis: Histogram['axis']) => void }) {
  const h = props.histogram;
  return (
    <div class="cursor-label">
      <strong data-testid="cursor-seq">as of seq {props.seq}</strong> <span class="muted">of {h.lastSeq}</span>
      {h.firstSeq > 1 && <span class="compacted-note"> · seqs 1–{h.firstSeq - 1} compacted</span>}
      <fieldset class="axis-choice">
        <legend class="sr-only">Histogram x axis</legend>
        {(['time', 'seq', 'date'] as const).map((axis) => (
          <label class="check" key={axis}>
            <input type="radio" name="histogram-axis" checked={props.axis === axis} onChange={() => props.onAxis(axis)} data-testid={`axis-${axis}`} />{' '}
            {axis === 'time' ? 'over wall time' : axis === 'seq' ? 'over seq' : 'over meta date'}
          </label>
        ))}
      </fieldset>
    </div>
  );
}
