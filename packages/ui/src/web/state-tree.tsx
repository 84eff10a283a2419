/**
 * The state tree at the cursor: a collapsible JSON tree loaded level by level (one request per
 * expanded node, children paged), virtualised, with "changed at this revision" marks, the scope
 * each value comes from in the effective view (and what it shadows), and "copy path" (the
 * `read_state` path, or the CLI command where no path exists), and a blame column (use-blame.ts)
 * naming the transition that last changed each value. Keyboard (WAI-ARIA tree):
 * Up/Down move, Right expands or enters, Left collapses or goes to the parent, Enter shows the
 * path's history, `c` copies the path.
 *
 * Parts: the data (use-tree-view.ts, tree-load.ts), the rows (tree-rows.ts), the keys
 * (tree-keys.ts), the drawing (tree-row.tsx, tree-head.tsx).
 */
import { useMemo, useState } from 'preact/hooks';
import { copyText } from './format.js';
import type { TreeShape, TreeView } from './tree-load.js';
import { treeKey } from './tree-keys.js';
import { MoreRow, NodeRow } from './tree-row.js';
import { TreeError, TreeHead } from './tree-head.js';
import { isContainer, treeRows, type TreeRow } from './tree-rows.js';
import type { NodeChild, Selection } from './types.js';
import { useBlame } from './use-blame.js';
import { useTreeView } from './use-tree-view.js';
import { VirtualList } from './virtual-list.js';

export type { TreeView } from './tree-load.js';

export interface StateTreeProps {
  selection: Selection;
  seq: number;
  /** Changes when the page took in new transitions (reload at the same cursor). */
  version: number;
  /** Called with what was rendered (after every load). */
  onView: (view: TreeView | null) => void;
  /** The user asked for the history of a path. */
  onPathHistory: (pointer: string, rev: number | null) => void;
  onStatus: (message: string) => void;
  /** Move the cursor (a blame entry's transition). */
  onSeq?: (seq: number) => void;
}

export function StateTree(props: StateTreeProps) {
  const [shape, setShape] = useState<TreeShape>('stored');
  const data = useTreeView(props.selection, props.seq, props.version, props.onView, shape);
  const { view, nodes, expanded } = data;
  const rows = useMemo<TreeRow[]>(() => treeRows(nodes, expanded), [nodes, expanded]);
  const [focusIndex, setFocusIndex] = useState<number | undefined>(undefined);
  const [blameOn, setBlameOn] = useState(false);
  const blame = useBlame(props.selection, view?.rev ?? null, expanded, blameOn);

  if (data.error !== null) return <TreeError error={data.error} />;
  if (view === null) return <section class="tree" aria-label="State tree">Loading…</section>;

  const copy = async (child: NodeChild) => {
    const text = child.path ?? cliFor(view, child);
    await copyText(text);
    props.onStatus(`Copied ${text}`);
  };
  const history = (child: NodeChild) => props.onPathHistory(child.pointer, view.rev);
  const more = (pointer: string) => void data.load(pointer, nodes.get(pointer)?.children.length ?? 0);
  const actions = { isOpen: (p: string) => expanded.has(p), toggle: data.toggle, focus: setFocusIndex, history, copy: (c: NodeChild) => void copy(c) };

  return (
    <section class="tree" aria-label="State tree" data-testid="tree" data-rev={view.rev ?? ''} data-seq={view.seq ?? ''} data-cursor={view.cursor}>
      <TreeHead view={view} shape={shape} onShape={setShape} />
      {view.rev !== null && (
        <label class="check blame-toggle">
          <input type="checkbox" checked={blameOn} onChange={() => setBlameOn(!blameOn)} data-testid="blame-toggle" /> blame: the transition that last changed each value
        </label>
      )}
      <VirtualList
        role="tree"
        label="State"
        idPrefix="node"
        testId="tree-rows"
        count={rows.length}
        rowHeight={26}
        activeIndex={focusIndex}
        rowAria={(i) => rowAria(rows[i], expanded)}
        onActivate={(i) => {
          const row = rows[i];
          if (row?.type === 'more') more(row.pointer);
        }}
        onKey={(i, event) => treeKey(rows, i, event.key, actions)}
        row={(i) => {
          const row = rows[i];
          if (row === undefined) return null;
          if (row.type === 'more') return <MoreRow depth={row.depth} remaining={row.remaining} onMore={() => more(row.pointer)} />;
          const c = row.child;
          return (
            <NodeRow
              child={c}
              depth={row.depth}
              open={expanded.has(c.pointer)}
              onToggle={() => data.toggle(c)}
              onCopy={() => void copy(c)}
              onHistory={() => history(c)}
              blame={blameOn ? (blame.get(c.pointer) ?? undefined) : undefined}
              onBlame={props.onSeq}
            />
          );
        }}
      />
      <p class="muted small">
        Keys: ↑/↓ move · → expand · ← collapse · Enter path history · c copy path
      </p>
    </section>
  );
}

/** The tree ARIA of a row: its level, and whether a container is open. */
function rowAria(row: TreeRow | undefined, expanded: ReadonlySet<string>) {
  if (row?.type !== 'node') return { 'aria-level': row?.depth };
  return { 'aria-level': row.depth, 'aria-expanded': isContainer(row.child) ? expanded.has(row.child.pointer) : undefined };
}

/** The CLI command for a node without a `read_state` path (slate and session-record streams, keys outside the path grammar). */
function cliFor(view: TreeView | null, child: NodeChild): string {
  return `${view?.root.cli ?? ''}  # then look up ${child.pointer}`;
}
