/**
 * The merge view: pick `from` (whose changes are brought in) and `into` (which receives them),
 * preview the merge — the diff it would publish on `into` and every conflict with its base, ours
 * and theirs — choose a resolution per conflict (ours, theirs or a JSON value), confirm the exact
 * patch, and publish it as one transition on `into` guarded by the head the preview showed: if
 * `into` moved on meanwhile the server answers 409 CONFLICT, nothing is published and the page
 * says so.
 *
 * Parts: the flow (use-merge.ts), the requests (merge-requests.ts), the pure parts
 * (merge-plan.ts), the drawing (merge-summary.tsx, merge-conflicts.tsx, confirm-dialog.tsx).
 */
import { useState } from 'preact/hooks';
import { ActionMessage } from './actions.js';
import { get, query } from './api.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { MergeConflicts } from './merge-conflicts.js';
import { nothingToMerge } from './merge-requests.js';
import { MergeSummary } from './merge-summary.js';
import type { StreamPage } from './types.js';
import { useLoaded } from './use-loaded.js';
import { useMerge } from './use-merge.js';

export interface MergeViewProps {
  /** The selected stream: the default `from`. */
  stream: string;
  onDone: (message: string) => void;
}

export function MergeView(props: MergeViewProps) {
  const [from, setFrom] = useState(props.stream);
  const [into, setInto] = useState('');
  const flow = useMerge(props.onDone);
  const shown = flow.shown;
  return (
    <section class="merge" aria-label="Merge" data-testid="merge">
      <MergeForm from={from} into={into} onFrom={setFrom} onInto={setInto} busy={flow.busy} onPreview={() => void flow.preview(from.trim(), into.trim())} />
      {flow.message !== null && <ActionMessage text={flow.message.text} error={flow.message.error} />}
      {shown !== null && (
        <>
          <MergeSummary plan={shown.plan} state={shown.state} />
          {shown.plan.conflicts.length > 0 && <MergeConflicts conflicts={shown.plan.conflicts} choices={flow.choices} onChoose={flow.choose} />}
          {flow.problems.length > 0 && (
            <ul class="muted small" data-testid="merge-problems">
              {flow.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          {!nothingToMerge(shown.plan) && (
            <button type="button" disabled={flow.busy || flow.problems.length > 0} onClick={() => void flow.prepare()} data-testid="merge-publish">
              Publish merge…
            </button>
          )}
        </>
      )}
      {flow.pending !== null && shown !== null && (
        <ConfirmDialog title={`Merge ${shown.plan.from} into ${shown.plan.into}?`} patch={flow.pending.patch} onConfirm={() => void flow.confirm()} onCancel={flow.cancel}>
          This publishes one transition on {shown.plan.into} with this patch, expecting its head to still be revision {shown.plan.intoRev}:
        </ConfirmDialog>
      )}
    </section>
  );
}

export interface MergeFormProps {
  from: string;
  into: string;
  onFrom: (stream: string) => void;
  onInto: (stream: string) => void;
  busy: boolean;
  onPreview: () => void;
}

/** The two streams (suggested from the store's streams) and the Preview button. */
export function MergeForm(props: MergeFormProps) {
  const streams = useLoaded((signal) => get<StreamPage>(`/v1/history/streams${query({ limit: 200 })}`, signal), []).value;
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <form
      class="merge-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onPreview();
      }}
    >
      <label class="field inline">
        <span>Merge from</span>
        <input value={props.from} list="merge-streams" onInput={(e) => props.onFrom(value(e))} data-testid="merge-from" />
      </label>
      <label class="field inline">
        <span>into</span>
        <input value={props.into} list="merge-streams" placeholder="e.g. the fork's source" onInput={(e) => props.onInto(value(e))} data-testid="merge-into" />
      </label>
      <datalist id="merge-streams">
        {streams?.streams.map((s) => (
          <option key={s.stream} value={s.stream} />
        ))}
      </datalist>
      <button type="submit" disabled={props.busy || props.from.trim() === '' || props.into.trim() === ''} data-testid="merge-preview">
        Preview merge
      </button>
    </form>
  );
}
