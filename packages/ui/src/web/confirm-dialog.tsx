/** The dialog before a guarded publication: what it does, the JSON it would publish, and Publish / Cancel. */
import type { ComponentChildren } from 'preact';

export interface ConfirmDialogProps {
  title: string;
  /** What publishing does (which guard it carries). */
  children: ComponentChildren;
  /** Shown as JSON. */
  patch: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog(props: ConfirmDialogProps) {
  return (
    <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-title" data-testid="confirm">
      <h2 id="confirm-title">{props.title}</h2>
      <p>{props.children}</p>
      <pre class="json" data-testid="confirm-patch">{JSON.stringify(props.patch, null, 2)}</pre>
      <div class="dialog-buttons">
        <button type="button" onClick={props.onConfirm} data-testid="confirm-yes" autoFocus>
          Publish
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
