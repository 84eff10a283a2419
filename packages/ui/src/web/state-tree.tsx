/**
 * The state tree at the cursor: a collapsible JSON tree loaded level by level (one request per
 * expanded node, children paged), virtualised, with "changed at this revision" marks, the scope
 * each value comes from in the effective view (and what it shadows), and "copy path" (the
 * `read_state` path, or the CLI command where no path exists). Keyboard (WAI-ARIA tree):
 * Up/Down move, Right expands or enters, Left collapses or goes to the parent, Enter shows the
 * path's history, `c` copies the path.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, get, query } from './api.js';
import { copyText, summaryText } from './format.js';
import type { EffectiveNode, NodeChild, NodePage, Selection, StreamNode } from './types.js';
import { VirtualList } from './virtual-list.js';

/** Children fetched per request. */
const PAGE = 200;

type Loaded = { page: NodePage; children: NodeChild[] };
type Row = { type: 'node'; depth: number; child: NodeChild } | { type: 'more'; depth: number; pointer: string; remaining: number };

export interface TreeView {
  /** The cursor seq this view was loaded for. */
  cursor: number;
  /** The stream revision shown (stream view), or `null` (effective view). */
  rev: number | null;
  /** Seq of the transition that produced what is shown (`null`: revision 0, or compacted away). */
  seq: number | null;
  head: number | null;
  origin: number | null;
  root: StreamNode | EffectiveNode;
}

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
}

function nodeUrl(selection: Selection, at: { seq: number } | { rev: number }, pointer: string, offset: number): string {
  if (selection.type === 'stream') {
    return `/v1/history/node${query({ stream: selection.stream, ...at, pointer, offset, limit: PAGE })}`;
  }
  return `/v1/history/effective-node${query({
    global: selection.global ? true : undefined,
    cwd: selection.cwd === '' ? undefined : selection.cwd,
    session: selection.session === '' ? undefined : selection.session,
    seq: 'seq' in at ? at.seq : undefined,
    pointer,
    offset,
    limit: PAGE,
  })}`;
}

export function StateTree(props: StateTreeProps) {
  const [nodes, setNodes] = useState<Map<string, Loaded>>(new Map());
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [view, setView] = useState<TreeView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const selectionKey = JSON.stringify(props.selection);
  // What to show (the latest props) and whether a load runs. One load at a time: while the cursor
  // is dragged, each finished load is shown and the next one starts at the newest cursor, so the
  // tree follows the drag instead of waiting for it to stop (or flooding the server).
  const wanted = useRef({ selection: props.selection, key: selectionKey, seq: props.seq, version: props.version });
  const running = useRef(false);
  const expandedRef = useRef(expanded);
  expandedRef.current = expanded;
  const onView = useRef(props.onView);
  onView.current = props.onView;

  useEffect(() => setExpanded(new Set()), [selectionKey]);

  const loadView = async (target: typeof wanted.current): Promise<{ view: TreeView; nodes: Map<string, Loaded> }> => {
    const root = await get<StreamNode | EffectiveNode>(nodeUrl(target.selection, { seq: target.seq }, '', 0));
    const at = 'rev' in root ? { rev: root.rev } : { seq: root.seq };
    const loaded = new Map<string, Loaded>([['', { page: root, children: root.children }]]);
    const open = target.key === wanted.current.key ? [...expandedRef.current] : [];
    await Promise.all(
      open.map(async (pointer) => {
        try {
          const page = await get<NodePage>(nodeUrl(target.selection, at, pointer, 0));
          loaded.set(pointer, { page, children: page.children });
        } catch {
          // The node does not exist at this revision: shown collapsed.
        }
      }),
    );
    const next: TreeView =
      'rev' in root
        ? { cursor: target.seq, rev: root.rev, seq: root.seq, head: root.head, origin: root.origin, root }
        : { cursor: target.seq, rev: null, seq: root.seq, head: null, origin: null, root };
    return { view: next, nodes: loaded };
  };

  useEffect(() => {
    wanted.current = { selection: props.selection, key: selectionKey, seq: props.seq, version: props.version };
    if (running.current) return;
    running.current = true;
    void (async () => {
      try {
        for (;;) {
          const target = wanted.current;
          try {
            const result = await loadView(target);
            if (target.key === wanted.current.key) {
              setNodes(result.nodes);
              setView(result.view);
              setError(null);
              onView.current(result.view);
            }
          } catch (err) {
            if (target === wanted.current) {
              setError(err instanceof ApiError ? err : new ApiError(0, 'NETWORK', String(err)));
              setView(null);
              onView.current(null);
            }
          }
          if (target === wanted.current) return;
        }
      } finally {
        running.current = false;
      }
    })();
  }, [selectionKey, props.seq, props.version]);

  const at = view === null ? null : view.rev !== null ? { rev: view.rev } : { seq: view.cursor };

  const load = async (pointer: string, offset: number) => {
    if (at === null) return;
    const page = await get<NodePage>(nodeUrl(props.selection, at, pointer, offset));
    setNodes((current) => {
      const next = new Map(current);
      const previous = offset === 0 ? [] : (current.get(pointer)?.children ?? []);
      next.set(pointer, { page, children: [...previous, ...page.children] });
      return next;
    });
  };

  /** Open or close a container: to `to.open` when given, else the other way. */
  const toggle = (child: NodeChild, to: { open?: boolean } = {}) => {
    if (child.kind !== 'object' && child.kind !== 'array') return;
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

  const rows = useMemo<Row[]>(() => {
    const out: Row[] = [];
    const walk = (pointer: string, depth: number) => {
      const loaded = nodes.get(pointer);
      if (loaded === undefined) return;
      for (const child of loaded.children) {
        out.push({ type: 'node', depth, child });
        if (expanded.has(child.pointer)) walk(child.pointer, depth + 1);
      }
      if (loaded.children.length < loaded.page.total) out.push({ type: 'more', depth, pointer, remaining: loaded.page.total - loaded.children.length });
    };
    walk('', 1);
    return out;
  }, [nodes, expanded]);

  const copy = async (child: NodeChild) => {
    const text = child.path ?? cliFor(view, child);
    await copyText(text);
    props.onStatus(`Copied ${text}`);
  };

  const parentIndex = (i: number): number => {
    const row = rows[i];
    if (row === undefined) return -1;
    for (let j = i - 1; j >= 0; j--) if ((rows[j]?.depth ?? 0) < row.depth) return j;
    return -1;
  };
  const [focusIndex, setFocusIndex] = useState<number | undefined>(undefined);

  if (error !== null) {
    if (error.code === 'HISTORY_NOT_RETAINED') {
      return (
        <section class="tree compacted" aria-label="State tree" data-testid="tree-compacted">
          <h2>Compacted</h2>
          <p>
            This stream's history before revision {String(error.details['origin'] ?? '?')} was compacted: that revision is no longer retained (its origin moved forward). Move the cursor later
            to see the stream.
          </p>
        </section>
      );
    }
    return (
      <section class="tree" aria-label="State tree">
        <p role="alert" class="error">
          {error.code}: {error.message}
        </p>
      </section>
    );
  }
  if (view === null) return <section class="tree" aria-label="State tree">Loading…</section>;

  return (
    <section class="tree" aria-label="State tree" data-testid="tree" data-rev={view.rev ?? ''} data-seq={view.seq ?? ''} data-cursor={view.cursor}>
      <header class="tree-head">
        <div>
          {view.rev !== null ? (
            <span data-testid="tree-rev">
              revision {view.rev} of {view.head}
              {view.origin !== null && view.origin > 0 ? ` (origin ${view.origin}; earlier revisions compacted)` : ''}
            </span>
          ) : (
            <span data-testid="tree-rev">effective view as of seq {view.seq}</span>
          )}
          {view.root.changed === true && <span class="badge changed"> ● changed at this {view.rev !== null ? 'revision' : 'seq'}</span>}
        </div>
        <div class="muted small">
          {view.root.total} top-level {view.root.total === 1 ? 'key' : 'keys'}
        </div>
      </header>
      <VirtualList
        role="tree"
        label="State"
        idPrefix="node"
        testId="tree-rows"
        count={rows.length}
        rowHeight={26}
        activeIndex={focusIndex}
        rowAria={(i) => {
          const row = rows[i];
          if (row?.type !== 'node') return { 'aria-level': row?.depth };
          const container = row.child.kind === 'object' || row.child.kind === 'array';
          return { 'aria-level': row.depth, 'aria-expanded': container ? expanded.has(row.child.pointer) : undefined };
        }}
        onActivate={(i) => {
          const row = rows[i];
          if (row?.type === 'more') void load(row.pointer, (nodes.get(row.pointer)?.children.length ?? 0));
        }}
        onKey={(i, event) => {
          const row = rows[i];
          if (row === undefined) return false;
          if (row.type === 'more') return false;
          const container = row.child.kind === 'object' || row.child.kind === 'array';
          if (event.key === 'ArrowRight') {
            if (container && !expanded.has(row.child.pointer)) toggle(row.child, { open: true });
            else if (container) setFocusIndex(i + 1);
            return true;
          }
          if (event.key === 'ArrowLeft') {
            if (container && expanded.has(row.child.pointer)) toggle(row.child, { open: false });
            else {
              const p = parentIndex(i);
              if (p >= 0) setFocusIndex(p);
            }
            return true;
          }
          if (event.key === 'Enter') {
            props.onPathHistory(row.child.pointer, view.rev);
            return true;
          }
          if (event.key === 'c') {
            void copy(row.child);
            return true;
          }
          return false;
        }}
        row={(i) => {
          const row = rows[i];
          if (row === undefined) return null;
          const indent = { paddingLeft: `${(row.depth - 1) * 16 + 4}px` };
          if (row.type === 'more') {
            return (
              <div class="node more" style={indent}>
                <button type="button" tabIndex={-1} onClick={() => void load(row.pointer, nodes.get(row.pointer)?.children.length ?? 0)}>
                  Load {Math.min(PAGE, row.remaining)} more ({row.remaining} not shown)
                </button>
              </div>
            );
          }
          const c = row.child;
          const container = c.kind === 'object' || c.kind === 'array';
          return (
            <div class={c.changed ? 'node is-changed' : 'node'} style={indent} data-pointer={c.pointer}>
              <button type="button" tabIndex={-1} class="toggle" aria-hidden="true" onClick={(e) => (e.stopPropagation(), toggle(c))}>
                {container ? (expanded.has(c.pointer) ? '▾' : '▸') : ' '}
              </button>
              <span class="key">{c.label}</span>
              <span class="colon">: </span>
              <span class={`value kind-${c.kind}`} data-testid="node-value">
                {summaryText(c)}
              </span>
              {c.changed && <span class="badge changed" title="changed by the transition at the cursor">● changed</span>}
              {c.scope !== undefined &&
                (c.merges !== undefined ? (
                  <span class="badge scope">merged {c.merges.join(' + ')}</span>
                ) : (
                  <span class={`badge scope scope-${c.scope}`}>from {c.scope}</span>
                ))}
              {c.shadows !== undefined && c.shadows.length > 0 && (
                <span class="badge shadows">shadows {c.shadows.map((s) => `${s.scope}: ${summaryText(s)}`).join('; ')}</span>
              )}
              <span class="row-actions">
                <button type="button" tabIndex={-1} onClick={(e) => (e.stopPropagation(), void copy(c))} title={c.path ?? 'copy the CLI command'}>
                  copy path
                </button>
                <button type="button" tabIndex={-1} onClick={(e) => (e.stopPropagation(), props.onPathHistory(c.pointer, view.rev))}>
                  history
                </button>
              </span>
            </div>
          );
        }}
      />
      <p class="muted small">
        Keys: ↑/↓ move · → expand · ← collapse · Enter path history · c copy path
      </p>
    </section>
  );
}

/** The CLI command for a node without a `read_state` path (slate and session-record streams, keys outside the path grammar). */
function cliFor(view: TreeView | null, child: NodeChild): string {
  return `${view?.root.cli ?? ''}  # then look up ${child.pointer}`;
}
