/**
 * The state tree's header (the revision shown and its head, or the effective view's seq; the
 * "changed" mark; the number of top-level keys; for a stream a shape governs, the version the
 * revision was written in and the stored / current toggle) and what the tree shows instead when
 * the load failed (a compacted revision explained, any other error by code).
 */
import type { ApiError } from './api.js';
import type { TreeShape, TreeView } from './tree-load.js';

/** The header; `shape` and `onShape` draw the stored / current toggle of a stream's tree. */
export function TreeHead(props: { view: TreeView; shape?: TreeShape; onShape?: (shape: TreeShape) => void }) {
  const view = props.view;
  return (
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
      {view.rev !== null && props.onShape !== undefined && <ShapeToggle view={view} shape={props.shape ?? 'stored'} onShape={props.onShape} />}
    </header>
  );
}

/**
 * Stored or current (store README "Shapes"), with what the server said of the stream's shape:
 * its name, the version the revision was written in and the one shown. A stream no shape
 * governs reads the same either way, and says so.
 */
export function ShapeToggle(props: { view: TreeView; shape: TreeShape; onShape: (shape: TreeShape) => void }) {
  const facts = 'shape' in props.view.root ? props.view.root.shape : undefined;
  const written = facts === undefined ? null : facts.written === null ? 'a compacted transition' : `v${facts.written}`;
  return (
    <div class="shape-toggle small" role="radiogroup" aria-label="Shape shown" data-testid="shape-toggle">
      {(['stored', 'current'] as const).map((choice) => (
        <label class="check" key={choice}>
          <input type="radio" name="tree-shape" checked={props.shape === choice} onChange={() => props.onShape(choice)} data-testid={`shape-${choice}`} /> {choice}
        </label>
      ))}
      <span class="muted" data-testid="shape-facts">
        {facts === undefined
          ? 'no shape governs this stream'
          : `shape ${facts.name}: written in ${written}, shown as v${facts.shown} (latest v${facts.latest})`}
      </span>
    </div>
  );
}

export function TreeError(props: { error: ApiError }) {
  const error = props.error;
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
