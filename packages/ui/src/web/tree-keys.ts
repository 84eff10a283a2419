/**
 * The state tree's keys on the active row (WAI-ARIA tree): Right expands a closed container or
 * enters an open one, Left collapses an open container or goes to the parent, Enter asks for the
 * path's history, `c` copies the path. Up/Down and the rest are the virtual list's.
 */
import { isContainer, parentIndex, type TreeRow } from './tree-rows.js';
import type { NodeChild } from './types.js';

/** What the keys act on. */
export interface TreeKeyActions {
  isOpen: (pointer: string) => boolean;
  toggle: (child: NodeChild, to: { open: boolean }) => void;
  focus: (index: number) => void;
  history: (child: NodeChild) => void;
  copy: (child: NodeChild) => void;
}

/** Handle `key` on row `i` of `rows`; true when handled. */
export function treeKey(rows: readonly TreeRow[], i: number, key: string, act: TreeKeyActions): boolean {
  const row = rows[i];
  if (row === undefined || row.type === 'more') return false;
  const child = row.child;
  const open = isContainer(child) && act.isOpen(child.pointer);
  switch (key) {
    case 'ArrowRight':
      if (isContainer(child)) open ? act.focus(i + 1) : act.toggle(child, { open: true });
      return true;
    case 'ArrowLeft': {
      if (open) act.toggle(child, { open: false });
      else if (parentIndex(rows, i) >= 0) act.focus(parentIndex(rows, i));
      return true;
    }
    case 'Enter':
      act.history(child);
      return true;
    case 'c':
      act.copy(child);
      return true;
    default:
      return false;
  }
}
