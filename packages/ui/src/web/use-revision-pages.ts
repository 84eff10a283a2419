/**
 * The revisions list's data: pages of 200 revisions of a stream by revision number, each asked
 * once (the first around the revision at the cursor), the head and origin as the first page read
 * them; everything restarts when the stream changes, and a late page of the stream shown before
 * is dropped.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { RevisionPage, RevisionRow } from './types.js';

/** Revisions per page. */
const PAGE = 200;

/** What {@link useRevisionPages} hands out. */
export interface RevisionPages {
  rows: ReadonlyMap<number, RevisionRow>;
  /** The first retained revision (origin + 1). */
  first: number;
  origin: number;
  /** Retained revisions (0 until the first page answers). */
  count: number;
  /** Ask for the page holding revision `rev`, unless it was asked already. */
  ensure: (rev: number) => void;
}

export function useRevisionPages(stream: string, rev: number | null): RevisionPages {
  const [rows, setRows] = useState<Map<number, RevisionRow>>(new Map());
  // Head and origin as the first page read them; the list's length follows from them.
  const [extent, setExtent] = useState<{ head: number; origin: number } | null>(null);
  const requested = useRef(new Set<number>());
  const current = useRef(stream);
  current.current = stream;

  const fetchPage = (from: number) => {
    requested.current.add(from);
    void get<RevisionPage>(`/v1/history/revisions${query({ stream, from, limit: PAGE })}`).then((page) => {
      // A page of the stream shown before arrives late: not this list's.
      if (stream !== current.current) return;
      setExtent((e) => e ?? { head: page.head, origin: page.origin });
      setRows((shown) => {
        const next = new Map(shown);
        for (const r of page.revisions) next.set(r.rev, r);
        return next;
      });
    });
  };
  useEffect(() => {
    setRows(new Map());
    setExtent(null);
    requested.current = new Set();
    fetchPage(Math.max(1, (rev ?? 1) - 20));
  }, [stream]);

  const origin = extent?.origin ?? 0;
  const first = origin + 1;
  const ensure = (at: number) => {
    const start = first + Math.floor((at - first) / PAGE) * PAGE;
    if (!requested.current.has(start)) fetchPage(start);
  };
  return { rows, first, origin, count: extent === null ? 0 : Math.max(0, extent.head - origin), ensure };
}
