/**
 * Live updates: the watch stream followed from the last seq the page shows; transitions after it
 * are collected (the banner offers them) while the cursor stays where the user put it.
 */
import { useEffect, useState } from 'preact/hooks';
import { watch } from './api.js';

/** What {@link useLive} hands out. */
export interface Live {
  /** Whether the watch stream is open. */
  live: boolean;
  /** Seqs of transitions after `knownLast`, in arrival order. */
  fresh: number[];
  /** Forget the fresh seqs (the page took them in); returns the newest seq known. */
  take: () => number;
}

/** Follow the watch stream from `knownLast` once the page has a timeline (`ready`). */
export function useLive(knownLast: number, ready: boolean): Live {
  const [fresh, setFresh] = useState<number[]>([]);
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (knownLast === 0 && !ready) return;
    const controller = new AbortController();
    void watch(knownLast, (t) => setFresh((f) => (t.seq > knownLast && !f.includes(t.seq) ? [...f, t.seq] : f)), controller.signal, (state) => setLive(state === 'live'));
    return () => controller.abort();
  }, [knownLast, ready]);
  const take = () => {
    const last = Math.max(knownLast, ...fresh);
    setFresh([]);
    return last;
  };
  return { live, fresh, take };
}
