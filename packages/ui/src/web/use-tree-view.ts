/**
 * The state tree's data: the view at the cursor, the loaded nodes, the open nodes, and the error
 * of the last load. One load at a time (use-following-load.ts): while the cursor is dragged, each
 * finished load is shown and the next one starts at the newest cursor, so the tree follows the
 * drag instead of waiting for it to stop (or flooding the server). Open nodes stay open across cursor moves (reloaded at
 * the new revision) and close when the selection changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from './api.js';
import type { ApiError } from './api.js';
import type { NodeChild, NodePage, Selection } from './types.js';
import { loadTreeView, nodeUrl, treeAt, type NodeLoad, type TreeShape, type TreeView } from './tree-load.js';
import { isContainer } from './tree-rows.js';
import { useFollowingLoad } from './use-following-load.js';
import { asApiError } from './use-loaded.js';

/** What {@link useTreeView} hands out. */
export interface TreeData {
  view: TreeView | null;
  error: ApiError | null;
  nodes: ReadonlyMap<string, NodeLoad>;
  expanded: ReadonlySet<string>;
  /** Load the children of `pointer` from `offset` (0 replaces what was loaded, more appends). */
  load: (pointer: string, offset: number) => Promise<void>;
  /** Open or close a container: to `to.open` when given, else the other way. */
  toggle: (child: NodeChild, to?: { open?: boolean }) => void;
}

type Wanted = { selection: Selection; key: string; seq: number; version: number; shape: TreeShape };

/**
 * The tree of `selection` at cursor `seq` in `shape`, reloaded when `version` or `shape` changes
 * (open nodes stay open); `onView` hears each view shown (`null` after a failed load).
 */
export function useTreeView(selection: Selection, seq: number, version: number, onView: (view: TreeView | null) => void, shape: TreeShape = 'stored'): TreeData {
  const [nodes, setNodes] = useState<Map<string, NodeLoad>>(new Map());
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [view, setView] = useState<TreeView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const key = JSON.stringify(selection);
  const expandedRef = useRef(expanded);
  expandedRef.current = expanded;
  const onViewRef = useRef(onView);
  onViewRef.current = onView;

  useEffect(() => setExpanded(new Set()), [key]);

  useFollowingLoad<Wanted>({ selection, key, seq, version, shape }, [key, seq, version, shape], async (target, latest) => {
    try {
      const result = await loadTreeView(target.selection, target.seq, target.key === latest().key ? [...expandedRef.current] : [], target.shape);
      if (target.key !== latest().key) return;
      setNodes(result.nodes);
      setView(result.view);
      setError(null);
      onViewRef.current(result.view);
    } catch (err) {
      if (target !== latest()) return;
      setError(asApiError(err));
      setView(null);
      onViewRef.current(null);
    }
  });

  const load = async (pointer: string, offset: number) => {
    const at = treeAt(view);
    if (at === null) return;
    const page = await get<NodePage>(nodeUrl(selection, at, pointer, offset, shape));
    setNodes((current) => {
      const next = new Map(current);
      const previous = offset === 0 ? [] : (current.get(pointer)?.children ?? []);
      next.set(pointer, { page, children: [...previous, ...page.children] });
      return next;
    });
  };

  const toggle = (child: NodeChild, to: { open?: boolean } = {}) => {
    if (!isContainer(child)) return;
    const isOpen = expanded.has(child.pointer);
    const want = to.open ?? !isOpen;
    if (want === isOpen) return;
    setExpanded((current) => {
      const next = new Set(current);
      if (want) next.add(child.pointer);
      else next.delete(child.pointer);
      return next;
    });
    if (want && !nodes.has(child.pointer)) void load(child.pointer, 0);
  };

  return { view, error, nodes, expanded, load, toggle };
}
