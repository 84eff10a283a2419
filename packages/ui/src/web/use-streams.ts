/**
 * The streams rail's data: the streams matching the filter (a server-side filter, asked 150 ms
 * after the last keystroke, 200 a page), more pages on request, reloaded when `version` changes.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { StreamPage, StreamRow } from './types.js';

/** Streams asked per page. */
const LIMIT = 200;

/** What {@link useStreams} hands out. */
export interface Streams {
  /** The last page (its counts per kind and the cursor of the next), `null` before the first. */
  page: StreamPage | null;
  /** Every stream loaded so far. */
  rows: StreamRow[];
  error: string | null;
  /** Load the next page, if there is one and none is loading. */
  more: () => void;
}

function streamsUrl(filter: string, after?: string): string {
  return `/v1/history/streams${query({ filter: filter === '' ? undefined : filter, after, limit: LIMIT })}`;
}

export function useStreams(filter: string, version: number): Streams {
  const [page, setPage] = useState<StreamPage | null>(null);
  const [rows, setRows] = useState<StreamRow[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      get<StreamPage>(streamsUrl(filter), controller.signal)
        .then((p) => {
          setPage(p);
          setRows(p.streams);
          setError(null);
        })
        .catch((err: Error) => controller.signal.aborted || setError(err.message));
    }, 150);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [filter, version]);

  const more = () => {
    if (page?.next == null || loading) return;
    setLoading(true);
    get<StreamPage>(streamsUrl(filter, page.next))
      .then((p) => {
        setPage(p);
        setRows((r) => [...r, ...p.streams]);
      })
      .finally(() => setLoading(false));
  };
  return { page, rows, error, more };
}
