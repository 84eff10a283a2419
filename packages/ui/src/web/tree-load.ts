/**
 * Loading the state tree: the URL of one page of a node's children (stream or effective view),
 * and the whole view at a cursor — the root and every node the user has open, fetched together
 * so the tree redraws once per cursor position.
 */
import { get, query } from './api.js';
import type { EffectiveNode, NodeChild, NodePage, Selection, StreamNode } from './types.js';

/** Children fetched per request. */
export const PAGE = 200;

/** A node's children loaded so far (`children.length < page.total` when more pages remain). */
export type NodeLoad = { page: NodePage; children: NodeChild[] };

/**
 * The shape a stream's tree is shown in (store README "Shapes"): `stored`, the bytes as written
 * (the page's default: the history page shows the log, and its diffs, reverts and forks work on
 * what was written), or `current`, upcast to the latest version of the stream's shape.
 */
export type TreeShape = 'stored' | 'current';

/** Where a node is read: the stream revision shown, or the effective view's seq. */
export type TreeAt = { seq: number } | { rev: number };

/** What the tree shows at a cursor. */
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
  /**
   * The transition the inspector shows: the one that produced what is shown — for a stream, `seq`;
   * for the effective view, the last transition at or before the cursor that changed one of its
   * streams (not the transition at the cursor, which may have changed none of them). `null`: none.
   */
  shownSeq: number | null;
}

/** `GET` URL of the children page of `pointer` from `offset` (at most {@link PAGE}), a stream's in `shape` (default `stored`). */
export function nodeUrl(selection: Selection, at: TreeAt, pointer: string, offset: number, shape: TreeShape = 'stored'): string {
  if (selection.type === 'stream') {
    return `/v1/history/node${query({ stream: selection.stream, ...at, pointer, offset, limit: PAGE, shape: shape === 'stored' ? undefined : shape })}`;
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

/** Where the children of `view` are read (`null` before a view is shown). */
export function treeAt(view: TreeView | null): TreeAt | null {
  return view === null ? null : view.rev !== null ? { rev: view.rev } : { seq: view.cursor };
}

/** The view of `selection` at cursor `seq`, with the first page of every pointer in `open` (one that does not exist there is left out: shown collapsed). */
export async function loadTreeView(selection: Selection, seq: number, open: readonly string[], shape: TreeShape = 'stored'): Promise<{ view: TreeView; nodes: Map<string, NodeLoad> }> {
  const root = await get<StreamNode | EffectiveNode>(nodeUrl(selection, { seq }, '', 0, shape));
  const at: TreeAt = 'rev' in root ? { rev: root.rev } : { seq: root.seq };
  const nodes = new Map<string, NodeLoad>([['', { page: root, children: root.children }]]);
  await Promise.all(
    open.map(async (pointer) => {
      try {
        const page = await get<NodePage>(nodeUrl(selection, at, pointer, 0, shape));
        nodes.set(pointer, { page, children: page.children });
      } catch {
        // The node does not exist at this revision: shown collapsed.
      }
    }),
  );
  const view: TreeView =
    'rev' in root
      ? { cursor: seq, rev: root.rev, seq: root.seq, head: root.head, origin: root.origin, root, shownSeq: root.seq }
      : { cursor: seq, rev: null, seq: root.seq, head: null, origin: null, root, shownSeq: await lastChangeOf(root.streams, root.seq) };
  return { view, nodes };
}

/** The last transition at or before `seq` that changed one of `streams` (`null`: none did), from each stream's revision as of `seq`. */
async function lastChangeOf(streams: readonly string[], seq: number): Promise<number | null> {
  const seqs = await Promise.all(
    streams.map((stream) =>
      get<StreamNode>(`/v1/history/node${query({ stream, seq, limit: 1 })}`).then(
        (node) => node.seq,
        () => null,
      ),
    ),
  );
  const known = seqs.filter((s): s is number => s !== null);
  return known.length === 0 ? null : Math.max(...known);
}
