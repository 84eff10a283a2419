/**
 * One row of the state tree: a node (toggle, key, value summary, "changed" mark, the scope it
 * comes from and what it shadows in the effective view, copy-path and history buttons), or the
 * "load more" row under a node with more children than loaded.
 */
import { summaryText } from './format.js';
import { PAGE } from './tree-load.js';
import { isContainer } from './tree-rows.js';
import type { NodeChild } from './types.js';

/** Left padding of a row at `depth` (1 = top level). */
function indent(depth: number) {
  return { paddingLeft: `${(depth - 1) * 16 + 4}px` };
}

/** The "load more" row: `remaining` children not loaded yet. */
export function MoreRow(props: { depth: number; remaining: number; onMore: () => void }) {
  return (
    <div class="node more" style={indent(props.depth)}>
      <button type="button" tabIndex={-1} onClick={props.onMore}>
        Load {Math.min(PAGE, props.remaining)} more ({props.remaining} not shown)
      </button>
    </div>
  );
}

export interface NodeRowProps {
  child: NodeChild;
  depth: number;
  open: boolean;
  onToggle: () => void;
  onCopy: () => void;
  onHistory: () => void;
}

/** A node's row (buttons do not move the list's active row: they stop the click). */
export function NodeRow(props: NodeRowProps) {
  const c = props.child;
  const stop = (then: () => void) => (e: Event) => (e.stopPropagation(), then());
  return (
    <div class={c.changed ? 'node is-changed' : 'node'} style={indent(props.depth)} data-pointer={c.pointer}>
      <button type="button" tabIndex={-1} class="toggle" aria-hidden="true" onClick={stop(props.onToggle)}>
        {isContainer(c) ? (props.open ? '▾' : '▸') : ' '}
      </button>
      <span class="key">{c.label}</span>
      <span class="colon">: </span>
      <span class={`value kind-${c.kind}`} data-testid="node-value">
        {summaryText(c)}
      </span>
      <NodeBadges child={c} />
      <span class="row-actions">
        <button type="button" tabIndex={-1} onClick={stop(props.onCopy)} title={c.path ?? 'copy the CLI command'}>
          copy path
        </button>
        <button type="button" tabIndex={-1} onClick={stop(props.onHistory)}>
          history
        </button>
      </span>
    </div>
  );
}

/** The marks of a node: changed at the cursor, the scope it comes from (or the scopes merged), what it shadows. */
export function NodeBadges(props: { child: NodeChild }) {
  const c = props.child;
  return (
    <>
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
    </>
  );
}
