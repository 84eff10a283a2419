/**
 * Path history ("blame"): every revision that changed the value at one path, with old → new
 * values, fetched page by page from the server (which reads a bounded number of revisions per
 * request) into a virtualised list. Activating an entry moves the cursor to its transition.
 *
 * Parts: the data (use-path-history.ts), a change (PathChangeRow).
 */
import { CHANGE_MARK, shownText, timeText } from './format.js';
import type { PathChange } from './types.js';
import { usePathHistory } from './use-path-history.js';
import { VirtualList } from './virtual-list.js';

export interface PathHistoryProps {
  stream: string;
  pointer: string;
  /** Revision at which the pointer was picked (resolves array items vs keys). */
  at: number | null;
  onSeq: (seq: number) => void;
}

export function PathHistory(props: PathHistoryProps) {
  const { changes, next, firstRev, loading, error, more } = usePathHistory(props.stream, props.pointer, props.at);
  return (
    <section class="path-history" aria-label="Path history" data-testid="path-history">
      <h2>
        History of <code>{props.pointer === '' ? '(root)' : props.pointer}</code>
      </h2>
      {firstRev > 1 && <p class="muted small">Revisions before {firstRev} were compacted.</p>}
      {error !== null && <p role="alert" class="error">{error}</p>}
      <p class="muted small" data-testid="path-history-count">
        {changes.length} change{changes.length === 1 ? '' : 's'}
        {next !== null ? ` so far (read up to revision ${next})` : ''}
      </p>
      <VirtualList
        label="Revisions that changed this path"
        idPrefix="ph"
        testId="path-history-rows"
        count={changes.length}
        rowHeight={26}
        onReachEnd={more}
        onActivate={(i) => {
          const c = changes[i];
          if (c !== undefined) props.onSeq(c.seq);
        }}
        row={(i) => {
          const c = changes[i];
          return c === undefined ? null : <PathChangeRow change={c} />;
        }}
      />
      {next !== null && (
        <button type="button" disabled={loading} onClick={more}>
          Read further
        </button>
      )}
    </section>
  );
}

/** One change of the path: its sign, revision, seq and time, old → new. */
export function PathChangeRow(props: { change: PathChange }) {
  const c = props.change;
  const mark = CHANGE_MARK[c.change];
  return (
    <div class={`ph-row ${c.change}`} data-rev={c.rev}>
      <span class="sign" aria-label={mark.label}>
        {mark.sign}
      </span>{' '}
      <span class="rev">rev {c.rev}</span> <span class="muted small">seq {c.seq} · {timeText(c.time)}</span>{' '}
      <span class="before">{shownText(c.before)}</span> → <span class="after">{shownText(c.after)}</span>
    </div>
  );
}
