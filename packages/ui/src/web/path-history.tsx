/**
 * Path history ("blame"): every revision that changed the value at one path, with old → new
 * values, fetched page by page from the server (which reads a bounded number of revisions per
 * request) into a virtualised list. Activating an entry moves the cursor to its transition.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import { CHANGE_MARK, shownText, timeText } from './format.js';
import type { PathChange, PathHistoryPage } from './types.js';
import { VirtualList } from './virtual-list.js';

export interface PathHistoryProps {
  stream: string;
  pointer: string;
  /** Revision at which the pointer was picked (resolves array items vs keys). */
  at: number | null;
  onSeq: (seq: number) => void;
}

export function PathHistory(props: PathHistoryProps) {
  const [changes, setChanges] = useState<PathChange[]>([]);
  const [next, setNext] = useState<number | null>(0);
  const [firstRev, setFirstRev] = useState(1);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const shown = useRef('');
  shown.current = `${props.stream}\n${props.pointer}`;
  const load = async (after: number, options: { reset: boolean }) => {
    const { reset } = options;
    const key = shown.current;
    setLoading(true);
    try {
      const page = await get<PathHistoryPage>(
        `/v1/history/path-history${query({ stream: props.stream, pointer: props.pointer, at: props.at ?? undefined, after, limit: 100 })}`,
      );
      // A page for the path shown before arrives late: not this list's.
      if (key !== shown.current) return;
      setChanges((c) => (reset ? page.changes : [...c, ...page.changes]));
      setNext(page.next);
      setFirstRev(page.firstRev);
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    setChanges([]);
    void load(0, { reset: true });
  }, [props.stream, props.pointer]);

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
        onReachEnd={() => next !== null && !loading && void load(next, { reset: false })}
        onActivate={(i) => {
          const c = changes[i];
          if (c !== undefined) props.onSeq(c.seq);
        }}
        row={(i) => {
          const c = changes[i];
          if (c === undefined) return null;
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
        }}
      />
      {next !== null && (
        <button type="button" disabled={loading} onClick={() => void load(next, { reset: false })}>
          Read further
        </button>
      )}
    </section>
  );
}
