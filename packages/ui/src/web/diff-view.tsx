/**
 * Diff: two revisions of a stream (or a stream against another, e.g. a fork and its source, or
 * two seqs of the effective view) as a structural diff with added / removed / changed filters
 * and unchanged subtrees collapsed, or as the stored patch; with the equivalent CLI command.
 *
 * Parts: the data (use-diff.ts), the controls (diff-controls.tsx), an entry (diff-row.tsx).
 */
import { useState } from 'preact/hooks';
import { DiffControls, type DiffFilter, type DiffMode } from './diff-controls.js';
import { DiffRow } from './diff-row.js';
import type { DiffResult, Selection } from './types.js';
import { useDiff } from './use-diff.js';
import { VirtualList } from './virtual-list.js';

export interface DiffViewProps {
  selection: Selection;
  /** Default sides: the revision (or seq) at the cursor and the one before it. */
  at: number;
}

export function DiffView(props: DiffViewProps) {
  const sides = useDiff(props.selection, props.at);
  const [show, setShow] = useState<DiffFilter>({ added: true, removed: true, changed: true });
  const [mode, setMode] = useState<DiffMode>('structural');
  const { value: result, error } = sides.diff;
  const unit = props.selection.type === 'stream' ? 'revision' : 'seq';
  return (
    <section class="diff" aria-label="Diff" data-testid="diff">
      <DiffControls
        unit={unit}
        a={sides.a}
        b={sides.b}
        streamB={sides.streamB}
        onA={sides.setA}
        onB={sides.setB}
        onStreamB={sides.setStreamB}
        show={show}
        onShow={setShow}
        mode={mode}
        onMode={setMode}
        result={result}
      />
      {error !== null && <p role="alert" class="error">{error.message}</p>}
      {result !== null && <DiffBody result={result} show={show} mode={mode} />}
    </section>
  );
}

/** The CLI command, then the patch or the entries the filters let through. */
export function DiffBody(props: { result: DiffResult; show: DiffFilter; mode: DiffMode }) {
  const result = props.result;
  const entries = result.entries.filter((e) => e.container !== undefined || props.show[e.change]);
  return (
    <>
      <p class="cli">
        <span class="muted">CLI: </span>
        <code data-testid="diff-cli">{result.cli}</code>
      </p>
      {props.mode === 'patch' ? (
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
            return e === undefined ? null : <DiffRow entry={e} />;
          }}
        />
      )}
      {result.truncated && <p class="muted">The diff was cut at {result.entries.length} entries.</p>}
    </>
  );
}
