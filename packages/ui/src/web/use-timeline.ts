/**
 * The store's timeline as the page knows it: the histogram of the time cursor (all streams, or
 * the selected one where the caller may not read them all) and the last seq it covers, reloaded
 * when the page takes in new transitions (`version`) or the axis changes; and, before the
 * histogram answers, the last seq from one cheap request so the cursor can start there.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { Histogram, Selection, StreamPage } from './types.js';

/** What {@link useTimeline} hands out: the histogram (`null` until loaded) and the last seq it covers (0 until then). */
export interface Timeline {
  histogram: Histogram | null;
  knownLast: number;
}

/** The timeline; `onLast` hears the last seq of each answer (the cursor starts there when it has no place yet). */
export function useTimeline(selection: Selection | null, version: number, axis: Histogram['axis'], onLast: (seq: number) => void): Timeline {
  const [histogram, setHistogram] = useState<Histogram | null>(null);
  const [knownLast, setKnownLast] = useState(0);
  const stream = selection?.type === 'stream' ? selection.stream : undefined;

  useEffect(() => {
    get<StreamPage>(`/v1/history/streams${query({ limit: 1 })}`).then((p) => onLast(p.lastSeq), () => undefined);
  }, []);

  useEffect(() => {
    get<Histogram>(`/v1/history/histogram${query({ buckets: 120, axis })}`)
      .catch(() => (stream === undefined ? null : get<Histogram>(`/v1/history/histogram${query({ buckets: 120, stream, axis })}`)))
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
