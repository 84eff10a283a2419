/**
 * Where the page is: the selection, the cursor seq, the tab, the pointer whose history is
 * shown and the time axis picked — read from the permalink at load, followed when a permalink is pasted into the tab, and
 * written back (with `replaceState`, which fires no `hashchange`) whenever it changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { permalinkHash, readPermalink, type Axis, type Tab } from './permalink.js';
import type { Selection } from './types.js';

/** A pointer whose history is shown, read at revision `rev` (`null`: the head). */
export type PointerAt = { pointer: string; rev: number | null };

/** What {@link useNavigation} hands out. */
export interface Navigation {
  selection: Selection | null;
  setSelection: (s: Selection) => void;
  cursorSeq: number | null;
  setCursorSeq: (update: number | ((c: number | null) => number | null)) => void;
  tab: Tab;
  setTab: (tab: Tab) => void;
  pointer: PointerAt | null;
  setPointer: (p: PointerAt | null) => void;
  /** The time axis picked (`null`: not picked; the page chooses). */
  axis: Axis | null;
  setAxis: (axis: Axis) => void;
}

export function useNavigation(): Navigation {
  const initial = useRef(readPermalink(location.hash)).current;
  const [selection, setSelection] = useState<Selection | null>(initial.selection);
  const [cursorSeq, setCursorSeq] = useState<number | null>(initial.seq);
  const [tab, setTab] = useState<Tab>(initial.tab);
  const [pointer, setPointer] = useState<PointerAt | null>(initial.pointer === null ? null : { pointer: initial.pointer, rev: null });
  const [axis, setAxis] = useState<Axis | null>(initial.axis ?? null);

  useEffect(() => {
    const follow = () => {
      const link = readPermalink(location.hash);
      if (link.selection === null) return;
      setSelection(link.selection);
      setCursorSeq((c) => link.seq ?? c);
      setTab(link.tab);
      setPointer(link.pointer === null ? null : { pointer: link.pointer, rev: null });
      if (link.axis !== undefined && link.axis !== null) setAxis(link.axis);
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  useEffect(() => {
    const hash = permalinkHash({ selection, seq: cursorSeq, tab, pointer: pointer?.pointer ?? null, axis });
    history.replaceState(null, '', `${location.pathname}${location.search}#${hash}`);
  }, [selection, cursorSeq, tab, pointer, axis]);

  return { selection, setSelection, cursorSeq, setCursorSeq, tab, setTab, pointer, setPointer, axis, setAxis };
}
