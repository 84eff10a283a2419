/**
 * One row of the state tree: a node (toggle, key, value summary, "changed" mark, the scope it
 * comes from and what it shadows in the effective view, copy-path and history buttons), or the
 * "load more" row under a node with more children than loaded.
 */
import { summaryText, timeText } from './format.js';
import { PAGE } from './tree-load.js';
import { isContainer } from './tree-rows.js';
import type { BlameEntry, NodeChild } from './types.js';

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
  /** The blame column's entry for this row: `undefined` when the column is off. */
  blame?: BlameEntry | undefined;
  /** Move the cursor to the transition the blame names. */
  onBlame?: (seq: number) => void;
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
      <span class="key" onClick={() => props.onToggle()}>
        {c.label}
      </span>
      <span class="colon">: </span>
      <span class={`value kind-${c.kind}`} data-testid="node-value">
        {summaryText(c)}
      </span>
      <NodeBadges child={c} />
      {props.blame !== undefined && <BlameCell entry={props.blame} onSeq={props.onBlame} />}
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

/** The blame column of a row: the revision that last changed the value, its date (meta date, else time) and writer; a click moves the cursor there. */
export function BlameCell(props: { entry: BlameEntry; onSeq?: ((seq: number) => void) | undefined }) {
  const change = props.entry.change;
  if (change === null) {
    return (
      <span class="blame muted" data-testid="blame" title="last changed before the revisions read">
        ≤ rev {props.entry.atOrBefore ?? '?'}
      </span>
    );
  }
  const when = change.date ?? change.time;
  const text = `rev ${change.rev} · ${timeText(when).slice(0, 10)}${change.writer === undefined ? '' : ` · ${change.writer}`}`;
  return (
    <button
      type="button"
      tabIndex={-1}
      class="blame"
      data-testid="blame"
      data-seq={change.seq}
      title={`last changed by seq ${change.seq} (revision ${change.rev}) at ${timeText(when)}${change.date === undefined ? '' : ' (meta date)'}${change.writer === undefined ? '' : ` by ${change.writer}`}`}
      onClick={(e) => (e.stopPropagation(), props.onSeq?.(change.seq))}
    >
      {text}
    </button>
  );
}
