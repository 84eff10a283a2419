/**
 * The state tree as the flat list of rows the virtual list draws: each loaded child at its depth,
 * the children of open nodes under it, and a "load more" row where a node has more children than
 * loaded. Pure, so the walk and the parent lookup (ArrowLeft) are tested without a DOM.
 */
import type { NodeChild } from './types.js';
import type { NodeLoad } from './tree-load.js';

/** One row: a node, or the "load more" row of a node's children. Depth 1 is the top level. */
export type TreeRow = { type: 'node'; depth: number; child: NodeChild } | { type: 'more'; depth: number; pointer: string; remaining: number };

/** Whether a child can be opened (an object or an array). */
export function isContainer(child: NodeChild): boolean {
  return child.kind === 'object' || child.kind === 'array';
}

/** The rows of the tree whose loaded nodes are `nodes` (by pointer; `''` is the root) and open nodes `expanded`. */
export function treeRows(nodes: ReadonlyMap<string, NodeLoad>, expanded: ReadonlySet<string>): TreeRow[] {
  const out: TreeRow[] = [];
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
}

/** Index of the parent row of row `i` (the nearest row above it that is less deep), or -1 at the top level. */
export function parentIndex(rows: readonly TreeRow[], i: number): number {
  const row = rows[i];
  if (row === undefined) return -1;
  for (let j = i - 1; j >= 0; j--) if ((rows[j]?.depth ?? 0) < row.depth) return j;
  return -1;
}
