/** The histogram drawn as SVG bars (one per bucket, height by count, a tooltip each), the hatched compacted edge and the cursor line at `x`. */
import type { Ref } from 'preact';
import { timeText } from './format.js';
import type { Histogram } from './types.js';

/** The SVG's coordinate box (stretched to the slider's size). */
export const WIDTH = 1000;
const HEIGHT = 56;

export function HistogramBars(props: { histogram: Histogram; x: number; svgRef: Ref<SVGSVGElement> }) {
  const h = props.histogram;
  const max = Math.max(1, ...h.buckets.map((b) => b.count));
  const barWidth = WIDTH / Math.max(1, h.buckets.length);
  const x = props.x;
  return (
    <svg ref={props.svgRef} class="histogram" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true">
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
  );
}
