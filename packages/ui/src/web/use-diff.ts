/**
 * The diff's data: sides A and B (following the cursor when it moves: B at it, A one before),
 * the stream of side B, and the diff loaded from `GET /v1/history/diff` whenever one changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import type { DiffResult, Selection } from './types.js';
import { useLoaded, type Loaded } from './use-loaded.js';

/** What {@link useDiff} hands out. */
export interface DiffSides {
  a: number;
  b: number;
  streamB: string;
  setA: (a: number) => void;
  setB: (b: number) => void;
  setStreamB: (stream: string) => void;
  diff: Loaded<DiffResult>;
}

/** The query of the diff between `a` and `b` of `selection` (side B from `streamB` when not blank). */
export function diffQuery(selection: Selection, a: number, b: number, streamB: string): string {
  const params =
    selection.type === 'stream'
      ? { stream: selection.stream, streamB: streamB.trim() === '' ? undefined : streamB.trim(), a, b }
      : { global: selection.global ? true : undefined, cwd: selection.cwd === '' ? undefined : selection.cwd, session: selection.session === '' ? undefined : selection.session, a, b };
  return query(params);
}

export function useDiff(selection: Selection, at: number): DiffSides {
  const [a, setA] = useState(Math.max(0, at - 1));
  const [b, setB] = useState(at);
  const [streamB, setStreamB] = useState('');
  const key = JSON.stringify(selection);

  // The sides follow the cursor when it moves (not on mount: the initial state already does).
  const followed = useRef(`${key}@${at}`);
  useEffect(() => {
    if (`${key}@${at}` === followed.current) return;
    followed.current = `${key}@${at}`;
    setA(Math.max(0, at - 1));
    setB(at);
  }, [at, key]);

  const diff = useLoaded((signal) => get<DiffResult>(`/v1/history/diff${diffQuery(selection, a, b, streamB)}`, signal), [a, b, streamB, key]);
  return { a, b, streamB, setA, setB, setStreamB, diff };
}
