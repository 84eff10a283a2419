/**
 * A search through time (`GET /v1/history/search`): the server reads at most its scan budget of
 * transitions per request and may answer an empty page with a `next`, so this asks again from
 * `next` until it has hits or reaches the end of the log; "more" goes on the same way.
 */
import { useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { SearchHit, SearchPage } from './types.js';

/** What is searched for (the route's parameters). */
export interface SearchQuery {
  stream?: string;
  key?: string;
  value?: string;
  text?: string;
}

/** What {@link useSearch} hands out. */
export interface SearchState {
  hits: SearchHit[];
  /** Reading: the last seq read so far, and the store's last seq. */
  progress: { read: number; last: number } | null;
  /** Where the next request starts, or `null` at the end of the log. */
  next: number | null;
  running: boolean;
  error: string | null;
  start: (q: SearchQuery) => void;
  more: () => void;
}

export function useSearch(): SearchState {
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [progress, setProgress] = useState<{ read: number; last: number } | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const current = useRef<{ q: SearchQuery; run: number } | null>(null);

  /** Ask from `after` until a page has hits or the log ends. */
  const run = async (q: SearchQuery, after: number, id: number) => {
    setRunning(true);
    setError(null);
    try {
      for (let from = after; ; ) {
        const page = await get<SearchPage>(`/v1/history/search${query({ ...q, after: from })}`);
        if (current.current?.run !== id) return;
        setProgress({ read: page.next ?? page.lastSeq, last: page.lastSeq });
        setNext(page.next);
        if (page.hits.length > 0) setHits((h) => [...h, ...page.hits]);
        if (page.hits.length > 0 || page.next === null) break;
        from = page.next;
      }
    } catch (err) {
      if (current.current?.run === id) setError(err instanceof Error ? err.message : String(err));
    } finally {
      if (current.current?.run === id) setRunning(false);
    }
  };

  const start = (q: SearchQuery) => {
    const id = (current.current?.run ?? 0) + 1;
    current.current = { q, run: id };
    setHits([]);
    setNext(null);
    setProgress(null);
    void run(q, 0, id);
  };
  const more = () => {
    if (current.current === null || next === null) return;
    void run(current.current.q, next, current.current.run);
  };
  return { hits, progress, next, running, error, start, more };
}
