/**
 * The state tree's header (the revision shown and its head, or the effective view's seq; the
 * "changed" mark; the number of top-level keys) and what the tree shows instead when the load
 * failed (a compacted revision explained, any other error by code).
 */
import type { ApiError } from './api.js';
import type { TreeView } from './tree-load.js';

export function TreeHead(props: { view: TreeView }) {
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
    </header>
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
