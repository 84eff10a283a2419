/**
 * The time cursor: a histogram of transitions over wall time (server-side buckets) and a
 * draggable "as of seq N" cursor over it (Datomic's as-of). The cursor is a slider: arrows move
 * one transition, PageUp/PageDown one bucket, Home/End the ends. Seqs before the first retained
 * one are drawn hatched and labelled compacted.
 */
import { useRef } from 'preact/hooks';
import { timeText } from './format.js';
import type { Histogram } from './types.js';

export interface TimeCursorProps {
  histogram: Histogram | null;
  seq: number;
  onSeq: (seq: number) => void;
  /** The x axis asked for: wall time, or the seq (a burst then spreads over the width). */
  axis: Histogram['axis'];
  onAxis: (axis: Histogram['axis']) => void;
}

const WIDTH = 1000;
const HEIGHT = 56;

/** The seq under horizontal fraction `x` (0…1) of the histogram. */
export function seqAtFraction(h: Histogram, x: number): number {
  const n = h.buckets.length;
  if (n === 0) return h.lastSeq;
  const f = Math.max(0, Math.min(0.999999, x)) * n;
  const bucket = h.buckets[Math.floor(f)];
  if (bucket === undefined) return h.lastSeq;
  if (bucket.toSeq < bucket.fromSeq) return Math.max(h.firstSeq, bucket.fromSeq - 1);
  const within = f - Math.floor(f);
  return Math.min(bucket.toSeq, bucket.fromSeq + Math.floor(within * (bucket.toSeq - bucket.fromSeq + 1)));
}

/** Horizontal fraction (0…1) of `seq`. */
export function fractionOfSeq(h: Histogram, seq: number): number {
  const n = h.buckets.length;
  for (let i = 0; i < n; i++) {
    const b = h.buckets[i];
    if (b !== undefined && seq >= b.fromSeq && seq <= b.toSeq) return (i + (seq - b.fromSeq + 0.5) / (b.toSeq - b.fromSeq + 1)) / n;
  }
  return seq < h.firstSeq ? 0 : 1;
}

export function TimeCursor(props: TimeCursorProps) {
  const svg = useRef<SVGSVGElement>(null);
  const h = props.histogram;
  const dragging = useRef(false);
  if (h === null) return <section class="cursor" aria-label="Time cursor">Loading history…</section>;
  const max = Math.max(1, ...h.buckets.map((b) => b.count));
  const barWidth = WIDTH / Math.max(1, h.buckets.length);
  const x = fractionOfSeq(h, props.seq) * WIDTH;
  const first = h.buckets[0];
  const last = h.buckets[h.buckets.length - 1];

  const fromPointer = (event: PointerEvent) => {
    const rect = svg.current?.getBoundingClientRect();
    if (rect === undefined || rect.width === 0) return;
    props.onSeq(seqAtFraction(h, (event.clientX - rect.left) / rect.width));
  };
  const step = Math.max(1, Math.round(h.lastSeq / Math.max(1, h.buckets.length)));
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = {
      ArrowLeft: props.seq - 1,
      ArrowDown: props.seq - 1,
      ArrowRight: props.seq + 1,
      ArrowUp: props.seq + 1,
      PageDown: props.seq - step,
      PageUp: props.seq + step,
      Home: h.firstSeq,
      End: h.lastSeq,
    };
    const to = moves[event.key];
    if (to === undefined) return;
    event.preventDefault();
    props.onSeq(Math.max(Math.min(h.firstSeq, h.lastSeq), Math.min(h.lastSeq, to)));
  };

  return (
    <section class="cursor" aria-label="Time cursor">
      <div class="cursor-label">
        <strong data-testid="cursor-seq">as of seq {props.seq}</strong> <span class="muted">of {h.lastSeq}</span>
        {h.firstSeq > 1 && <span class="compacted-note"> · seqs 1–{h.firstSeq - 1} compacted</span>}
        <fieldset class="axis-choice">
          <legend class="sr-only">Histogram x axis</legend>
          {(['time', 'seq'] as const).map((axis) => (
            <label class="check" key={axis}>
              <input type="radio" name="histogram-axis" checked={props.axis === axis} onChange={() => props.onAxis(axis)} data-testid={`axis-${axis}`} />{' '}
              {axis === 'time' ? 'over wall time' : 'over seq'}
            </label>
          ))}
        </fieldset>
      </div>
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
        <svg ref={svg} class="histogram" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true">
          <defs>
            <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <line x1="0" y1="0" x2="0" y2="6" class="hatch-line" />
            </pattern>
          </defs>
          {h.buckets.map((b, i) => {
            const height = b.count === 0 ? 0 : Math.max(2, (b.count / max) * (HEIGHT - 4));
            return (
              <rect key={i} class="bar" x={i * barWidth + 0.5} y={HEIGHT - height} width={Math.max(0.5, barWidth - 1)} height={height}>
                <title>{`${b.count} transitions, seq ${b.fromSeq}–${b.toSeq}, ${timeText(b.start)} – ${timeText(b.end)}`}</title>
              </rect>
            );
          })}
          {h.firstSeq > 1 && <rect x={0} y={0} width={2} height={HEIGHT} fill="url(#hatch)" />}
          <line class="cursor-line" x1={x} x2={x} y1={0} y2={HEIGHT} />
          <rect class="cursor-handle" x={x - 4} y={0} width={8} height={10} />
        </svg>
      </div>
      <div class="axis muted small">
        <span>{timeText(first?.start)}</span>
        <span>{timeText(last?.end)}</span>
      </div>
    </section>
  );
}
