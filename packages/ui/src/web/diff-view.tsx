/**
 * Diff: two revisions of a stream (or a stream against another, e.g. a fork and its source, or
 * two seqs of the effective view) as a structural diff with added / removed / changed filters
 * and unchanged subtrees collapsed, or as the stored patch; with the equivalent CLI command.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, query } from './api.js';
import { CHANGE_MARK, shownText } from './format.js';
import type { DiffEntry, DiffResult, Selection } from './types.js';
import { VirtualList } from './virtual-list.js';

export interface DiffViewProps {
  selection: Selection;
  /** Default sides: the revision (or seq) at the cursor and the one before it. */
  at: number;
}

export function DiffView(props: DiffViewProps) {
  const [a, setA] = useState(Math.max(0, props.at - 1));
  const [b, setB] = useState(props.at);
  const [streamB, setStreamB] = useState('');
  const [result, setResult] = useState<DiffResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [show, setShow] = useState({ added: true, removed: true, changed: true });
  const [mode, setMode] = useState<'structural' | 'patch'>('structural');

  // The sides follow the cursor when it moves (not on mount: the initial state already does).
  const followed = useRef(`${JSON.stringify(props.selection)}@${props.at}`);
  useEffect(() => {
    const key = `${JSON.stringify(props.selection)}@${props.at}`;
    if (key === followed.current) return;
    followed.current = key;
    setA(Math.max(0, props.at - 1));
    setB(props.at);
  }, [props.at, JSON.stringify(props.selection)]);

  useEffect(() => {
    const controller = new AbortController();
    const s = props.selection;
    const params =
      s.type === 'stream'
        ? { stream: s.stream, streamB: streamB.trim() === '' ? undefined : streamB.trim(), a, b }
        : { global: s.global ? true : undefined, cwd: s.cwd === '' ? undefined : s.cwd, session: s.session === '' ? undefined : s.session, a, b };
    get<DiffResult>(`/v1/history/diff${query(params)}`, controller.signal)
      .then((r) => {
        setResult(r);
        setError(null);
      })
      .catch((err: Error) => controller.signal.aborted || setError(err.message));
    return () => controller.abort();
  }, [a, b, streamB, JSON.stringify(props.selection)]);

  const entries: DiffEntry[] = (result?.entries ?? []).filter((e) => e.container !== undefined || show[e.change]);
  const unit = props.selection.type === 'stream' ? 'revision' : 'seq';
  return (
    <section class="diff" aria-label="Diff" data-testid="diff">
      <form class="diff-controls" onSubmit={(e) => e.preventDefault()}>
        <label class="field inline">
          <span>A ({unit})</span>
          <input type="number" min={0} value={a} onInput={(e) => setA(Number((e.target as HTMLInputElement).value))} data-testid="diff-a" />
        </label>
        <label class="field inline">
          <span>B ({unit})</span>
          <input type="number" min={0} value={b} onInput={(e) => setB(Number((e.target as HTMLInputElement).value))} data-testid="diff-b" />
        </label>
        {props.selection.type === 'stream' && (
          <label class="field inline">
            <span>B from stream (fork vs source)</span>
            <input value={streamB} placeholder="same stream" onInput={(e) => setStreamB((e.target as HTMLInputElement).value)} />
          </label>
        )}
        <fieldset class="filters">
          <legend>Show</legend>
          {(['added', 'removed', 'changed'] as const).map((kind) => (
            <label class="check" key={kind}>
              <input type="checkbox" checked={show[kind]} onChange={(e) => setShow({ ...show, [kind]: (e.target as HTMLInputElement).checked })} /> {CHANGE_MARK[kind].sign}{' '}
              {CHANGE_MARK[kind].label} ({result?.counts[kind] ?? 0})
            </label>
          ))}
        </fieldset>
        <fieldset class="filters">
          <legend>As</legend>
          <label class="check">
            <input type="radio" name="diff-mode" checked={mode === 'structural'} onChange={() => setMode('structural')} /> structural
          </label>
          <label class="check">
            <input type="radio" name="diff-mode" checked={mode === 'patch'} onChange={() => setMode('patch')} data-testid="diff-mode-patch" /> {result?.storedPatch != null ? 'stored patch' : 'patch'}
          </label>
        </fieldset>
      </form>
      {error !== null && <p role="alert" class="error">{error}</p>}
      {result !== null && (
        <>
          <p class="cli">
            <span class="muted">CLI: </span>
            <code data-testid="diff-cli">{result.cli}</code>
          </p>
          {mode === 'patch' ? (
            <pre class="json" data-testid="diff-patch">{JSON.stringify(result.storedPatch ?? result.patch, null, 2)}</pre>
          ) : entries.length === 0 ? (
            <p class="muted">No differences.</p>
          ) : (
            <VirtualList
              label="Differences"
              idPrefix="diff"
              testId="diff-entries"
              count={entries.length}
              rowHeight={26}
              row={(i) => {
                const e = entries[i];
                if (e === undefined) return null;
                const mark = CHANGE_MARK[e.change];
                return (
                  <div class={`diff-row ${e.change}`} style={{ paddingLeft: `${(e.depth - 1) * 16 + 4}px` }} data-pointer={e.pointer}>
                    <span class="sign" aria-label={mark.label}>
                      {mark.sign}
                    </span>{' '}
                    <span class="key">{e.label}</span>
                    {e.container !== undefined ? (
                      <span class="muted"> {e.container.unchanged > 0 ? `(${e.container.unchanged} unchanged collapsed)` : ''}</span>
                    ) : (
                      <span>
                        {': '}
                        {e.change !== 'added' && <span class="before">{shownText(e.before)}</span>}
                        {e.change === 'changed' && ' → '}
                        {e.change !== 'removed' && <span class="after">{shownText(e.after)}</span>}
                      </span>
                    )}
                    <span class="sr-only"> ({mark.label})</span>
                  </div>
                );
              }}
            />
          )}
          {result.truncated && <p class="muted">The diff was cut at {result.entries.length} entries.</p>}
        </>
      )}
    </section>
  );
}
