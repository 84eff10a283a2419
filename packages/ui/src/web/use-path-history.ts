/**
 * The path history's data: the changes of one path, read 100 revisions' worth at a time from
 * `GET /v1/history/path-history` (the server reads a bounded number of revisions per request),
 * restarted when the stream or the path changes; a late page of the path shown before is dropped.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { PathChange, PathHistoryPage } from './types.js';

/** What {@link usePathHistory} hands out. */
export interface PathHistoryData {
  changes: PathChange[];
  /** The revision to read after (`null`: the head was reached). */
  next: number | null;
  /** The first revision that could be read (earlier ones were compacted). */
  firstRev: number;
  loading: boolean;
  error: string | null;
  /** Read the next page, if there is one and none is loading. */
  more: () => void;
}

export function usePathHistory(stream: string, pointer: string, at: number | null): PathHistoryData {
  const [changes, setChanges] = useState<PathChange[]>([]);
  const [next, setNext] = useState<number | null>(0);
  const [firstRev, setFirstRev] = useState(1);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = useRef('');
  shown.current = `${stream}\n${pointer}`;

  const load = async (after: number, options: { reset: boolean }) => {
    const key = shown.current;
    setLoading(true);
    try {
      const page = await get<PathHistoryPage>(`/v1/history/path-history${query({ stream, pointer, at: at ?? undefined, after, limit: 100 })}`);
      // A page for the path shown before arrives late: not this list's.
      if (key !== shown.current) return;
      setChanges((c) => (options.reset ? page.changes : [...c, ...page.changes]));
      setNext(page.next);
      setFirstRev(page.firstRev);
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    setChanges([]);
    void load(0, { reset: true });
  }, [stream, pointer]);

  const more = () => {
    if (next !== null && !loading) void load(next, { reset: false });
  };
  return { changes, next, firstRev, loading, error, more };
}
