/**
 * Guarded actions on the revision at the cursor: "revert to here" and "fork from here". Each first
 * shows the patch it would publish and asks for confirmation, then publishes through the store
 * API with `expected` = the head this page showed (revert: exactly the patch shown, from the
 * head to the revision, with the store's revert meta; fork: the new stream must not exist yet):
 * if the stream moved on meanwhile, the server answers 409 CONFLICT and the page says so
 * instead of overwriting the newer revision.
 */
import { useState } from 'preact/hooks';
import { ApiError, get, post, query } from './api.js';
import type { DiffResult, JsonObject, PublishResult } from './types.js';

export interface ActionsProps {
  stream: string;
  /** Revision at the cursor. */
  rev: number;
  /** Head revision the page shows. */
  head: number;
  onDone: (message: string) => void;
}

type Pending = { kind: 'revert'; patch: JsonObject } | { kind: 'fork'; to: string; patch: JsonObject };

export function Actions(props: ActionsProps) {
  const [pending, setPending] = useState<Pending | null>(null);
  const [forkTo, setForkTo] = useState('');
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);

  const previewRevert = async () => {
    const d = await get<DiffResult>(`/v1/history/diff${query({ stream: props.stream, a: props.head, b: props.rev })}`);
    setPending({ kind: 'revert', patch: d.patch });
  };
  const previewFork = async () => {
    const to = forkTo.trim();
    if (to === '') {
      setMessage({ text: 'Name the new stream first (e.g. cwd:/proj-experiment).', error: true });
      return;
    }
    const d = await get<DiffResult>(`/v1/history/diff${query({ stream: to, a: 0, streamB: props.stream, b: props.rev })}`);
    setPending({ kind: 'fork', to, patch: d.patch });
  };
  const confirm = async () => {
    if (pending === null) return;
    try {
      if (pending.kind === 'revert' && Object.keys(pending.patch).length === 0) {
        // Nothing to publish, so no publication can carry the guard: check the head instead.
        const now = await get<{ rev: number }>(`/v1/store/head${query({ stream: props.stream })}`);
        if (now.rev !== props.head) throw new ApiError(409, 'CONFLICT', `${props.stream} is at revision ${now.rev}, not ${props.head}`);
      }
      const receipt =
        pending.kind === 'revert'
          ? Object.keys(pending.patch).length === 0
            ? { status: 'noop' as const, transition: null }
            : await post<PublishResult>('/v1/store/publish', {
                changes: { [props.stream]: pending.patch },
                expected: { [props.stream]: props.head },
                meta: { revert: { stream: props.stream, rev: props.rev } },
              })
          : await post<PublishResult>('/v1/store/fork', { from: props.stream, to: pending.to, at: props.rev, expected: 'none' });
      const text =
        receipt.status === 'noop'
          ? 'Nothing to publish: the state already equals it.'
          : `${pending.kind === 'revert' ? 'Reverted' : `Forked to ${pending.to}`}: published transition ${receipt.transition?.seq ?? '?'}.`;
      setMessage({ text, error: false });
      props.onDone(text);
    } catch (err) {
      const text =
        err instanceof ApiError && err.code === 'CONFLICT'
          ? `Conflict: ${err.message}. The stream changed since this page showed revision ${props.head}; nothing was published. Reload the stream to see its new head.`
          : (err as Error).message;
      setMessage({ text, error: true });
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
      {message !== null && (
        <p role={message.error ? 'alert' : 'status'} class={message.error ? 'error' : 'ok'} data-testid="action-message">
          {message.text}
        </p>
      )}
      {pending !== null && (
        <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-title" data-testid="confirm">
          <h2 id="confirm-title">
            {pending.kind === 'revert' ? `Revert ${props.stream} to revision ${props.rev}?` : `Fork ${props.stream}@${props.rev} to ${pending.to}?`}
          </h2>
          <p>
            This publishes one new transition with this patch{pending.kind === 'revert' ? `, expecting the head to still be revision ${props.head}` : ', expecting the new stream not to exist'}:
          </p>
          <pre class="json" data-testid="confirm-patch">{JSON.stringify(pending.patch, null, 2)}</pre>
          <div class="dialog-buttons">
            <button type="button" onClick={() => void confirm()} data-testid="confirm-yes" autoFocus>
              Publish
            </button>
            <button type="button" onClick={() => setPending(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
