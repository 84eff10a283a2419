/**
 * Guarded actions on the revision at the cursor: "revert to here" and "fork from here". Each first
 * shows the patch it would publish and asks for confirmation, then publishes through the store
 * API with `expected` = the head this page showed (revert: exactly the patch shown, from the
 * head to the revision, with the store's revert meta; fork: the new stream must not exist yet):
 * if the stream moved on meanwhile, the server answers 409 CONFLICT and the page says so
 * instead of overwriting the newer revision.
 *
 * Parts: the requests (action-requests.ts), the dialog (confirm-dialog.tsx).
 */
import { useState } from 'preact/hooks';
import { failureText, forkPatch, publishAction, revertPatch, type PendingAction } from './action-requests.js';
import { ConfirmDialog } from './confirm-dialog.js';

export interface ActionsProps {
  stream: string;
  /** Revision at the cursor. */
  rev: number;
  /** Head revision the page shows. */
  head: number;
  onDone: (message: string) => void;
}

export function Actions(props: ActionsProps) {
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [forkTo, setForkTo] = useState('');
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);

  const previewRevert = async () => setPending({ kind: 'revert', patch: await revertPatch(props.stream, props.head, props.rev) });
  const previewFork = async () => {
    const to = forkTo.trim();
    if (to === '') return setMessage({ text: 'Name the new stream first (e.g. cwd:/proj-experiment).', error: true });
    setPending({ kind: 'fork', to, patch: await forkPatch(props.stream, props.rev, to) });
  };
  const confirm = async (action: PendingAction) => {
    try {
      const receipt = await publishAction(props.stream, props.rev, props.head, action);
      const text =
        receipt.status === 'noop'
          ? 'Nothing to publish: the state already equals it.'
          : `${action.kind === 'revert' ? 'Reverted' : `Forked to ${action.to}`}: published transition ${receipt.transition?.seq ?? '?'}.`;
      setMessage({ text, error: false });
      props.onDone(text);
    } catch (err) {
      setMessage({ text: failureText(err, props.head), error: true });
    }
    setPending(null);
  };

  return (
    <div class="actions" data-testid="actions">
      <button type="button" onClick={() => void previewRevert()} disabled={props.rev === props.head} data-testid="revert">
        Revert to here
      </button>
      <label class="field inline">
        <span class="sr-only">New stream for the fork</span>
        <input value={forkTo} placeholder="fork to stream…" onInput={(e) => setForkTo((e.target as HTMLInputElement).value)} />
      </label>
      <button type="button" onClick={() => void previewFork()} data-testid="fork">
        Fork from here
      </button>
      {message !== null && <ActionMessage text={message.text} error={message.error} />}
      {pending !== null && (
        <ConfirmDialog
          title={pending.kind === 'revert' ? `Revert ${props.stream} to revision ${props.rev}?` : `Fork ${props.stream}@${props.rev} to ${pending.to}?`}
          patch={pending.patch}
          onConfirm={() => void confirm(pending)}
          onCancel={() => setPending(null)}
        >
          This publishes one new transition with this patch{pending.kind === 'revert' ? `, expecting the head to still be revision ${props.head}` : ', expecting the new stream not to exist'}:
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The outcome of an action: a status, or an alert. */
export function ActionMessage(props: { text: string; error: boolean }) {
  return (
    <p role={props.error ? 'alert' : 'status'} class={props.error ? 'error' : 'ok'} data-testid="action-message">
      {props.text}
    </p>
  );
}
