/**
 * The store's timeline as the page knows it: the histogram of the time cursor (all streams, or
 * the selected one where the caller may not read them all) and the last seq it covers, reloaded
 * when the page takes in new transitions (`version`) or the axis changes (with none picked, a
 * stream whose every transition has a meta date is drawn over those dates); and, before the
 * histogram answers, the last seq from one cheap request so the cursor can start there.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { Axis } from './permalink.js';
import type { Histogram, Selection, StreamPage } from './types.js';

/** What {@link useTimeline} hands out: the histogram (`null` until loaded), the last seq it covers (0 until then), and the axis it is drawn over. */
export interface Timeline {
  histogram: Histogram | null;
  knownLast: number;
}

/**
 * The histogram over `axis`; with no axis picked (`null`), over the meta dates of the selected
 * stream when every transition of it has one (an imported history: the commits' dates), else
 * over wall time.
 */
async function histogramFor(axis: Axis | null, stream: string | undefined): Promise<Histogram | null> {
  if (axis === 'date' || (axis === null && stream !== undefined)) {
    const dated = stream === undefined ? null : await get<Histogram>(`/v1/history/histogram${query({ buckets: 120, stream, axis: 'date' })}`).catch(() => null);
    if (dated !== null && (axis === 'date' || (dated.undated === 0 && dated.buckets.length > 0))) return dated;
  }
  const wall = axis === 'seq' ? 'seq' : 'time';
  return get<Histogram>(`/v1/history/histogram${query({ buckets: 120, axis: wall })}`).catch(() =>
    stream === undefined ? null : get<Histogram>(`/v1/history/histogram${query({ buckets: 120, stream, axis: wall })}`),
  );
}

/** The timeline; `onLast` hears the last seq of each answer (the cursor starts there when it has no place yet). */
export function useTimeline(selection: Selection | null, version: number, axis: Axis | null, onLast: (seq: number) => void): Timeline {
  const [histogram, setHistogram] = useState<Histogram | null>(null);
  const [knownLast, setKnownLast] = useState(0);
  const stream = selection?.type === 'stream' ? selection.stream : undefined;

  useEffect(() => {
    get<StreamPage>(`/v1/history/streams${query({ limit: 1 })}`).then((p) => onLast(p.lastSeq), () => undefined);
  }, []);

  useEffect(() => {
    histogramFor(axis, stream)
      .then((h) => {
        if (h === null) return;
        setHistogram(h);
        setKnownLast(h.lastSeq);
        onLast(h.lastSeq);
      })
      .catch(() => undefined);
  }, [version, axis, stream ?? '']);

  return { histogram, knownLast };
}
