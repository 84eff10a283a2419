/**
 * The undo view: pick a writer among those the stream's log shows (with the MCP tools its
 * transitions were written by), and the seq to undo after; preview the undo — what it would
 * publish on each stream and every conflict, where another writer changed what it wrote; settle
 * the conflicts with ours (keep the later writes) or theirs (as before the undone writes); confirm
 * the exact patches, and publish them as one transition guarded by the heads the preview read:
 * if a stream moved on meanwhile the server answers 409 CONFLICT, nothing is published and the
 * page says so.
 *
 * Parts: the requests (undo-requests.ts), the drawing (this file, confirm-dialog.tsx).
 */
import { useState } from 'preact/hooks';
import { ActionMessage } from './actions.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { sideText } from './merge-conflicts.js';
import { previewUndo, publishUndo, undoFailureText, writersOf } from './undo-requests.js';
import type { SeenWriter, UndoPreview, UndoRequest } from './undo-requests.js';
import { useLoaded } from './use-loaded.js';

export interface UndoViewProps {
  stream: string;
  onDone: (message: string) => void;
}

export function UndoView(props: UndoViewProps) {
  const writers = useLoaded((signal) => writersOf(props.stream, signal), [props.stream]).value ?? [];
  const [picked, setPicked] = useState<string>('');
  const [since, setSince] = useState<string>('');
  const [prefer, setPrefer] = useState<'' | 'ours' | 'theirs'>('');
  const [plan, setPlan] = useState<UndoPreview | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const writer = writers.find((w) => w.label === picked) ?? null;
  const request = (): UndoRequest | null => {
    if (writer === null) return null;
    const n = since === '' ? writer.firstSeq - 1 : Number(since);
    return { writer: writer.match, since: n, ...(prefer === '' ? {} : { prefer }) };
  };
  const run = async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      setMessage({ text: undoFailureText(err), error: true });
      setConfirming(false);
    }
  };
  const open = plan === null ? 0 : plan.conflicts.filter((c) => c.resolution === undefined).length;
  const empty = plan !== null && Object.values(plan.patches).every((p) => Object.keys(p).length === 0);
  return (
    <section class="undo" aria-label="Undo" data-testid="undo">
      <WriterPicker writers={writers} picked={picked} onPick={(label) => (setPicked(label), setPlan(null))} />
      <label>
        after seq <input type="number" min={0} value={since} placeholder={writer === null ? '' : String(writer.firstSeq - 1)} onInput={(e) => setSince((e.target as HTMLInputElement).value)} data-testid="undo-since" />
      </label>
      <label>
        conflicts{' '}
        <select value={prefer} onChange={(e) => setPrefer((e.target as HTMLSelectElement).value as '' | 'ours' | 'theirs')} data-testid="undo-prefer">
          <option value="">ask</option>
          <option value="ours">ours: keep the later writes</option>
          <option value="theirs">theirs: as before the undone writes</option>
        </select>
      </label>
      <button type="button" disabled={writer === null} onClick={() => void run(async () => (setMessage(null), setPlan(await previewUndo(request() as UndoRequest))))} data-testid="undo-preview">
        Preview
      </button>
      {message !== null && <ActionMessage text={message.text} error={message.error} />}
      {plan !== null && <UndoPlanView plan={plan} />}
      {plan !== null && !empty && (
        <button type="button" disabled={open > 0} onClick={() => setConfirming(true)} data-testid="undo-publish">
          {open > 0 ? `${open} conflict${open === 1 ? '' : 's'} to settle` : 'Publish undo…'}
        </button>
      )}
      {confirming && plan !== null && (
        <ConfirmDialog
          title={`Undo ${plan.undone.length} transition${plan.undone.length === 1 ? '' : 's'} of ${picked}?`}
          patch={plan.patches}
          onConfirm={() =>
            void run(async () => {
              const done = await publishUndo({ ...(request() as UndoRequest), heads: plan.heads });
              setConfirming(false);
              setPlan(null);
              props.onDone(done.status === 'accepted' ? `Undid ${done.undone.length} transitions of ${picked}: seq ${done.transition.seq}` : 'Nothing left to undo; nothing published');
            })
          }
          onCancel={() => setConfirming(false)}
        >
          This publishes one transition with these patches, expecting each stream's head to still be what the preview read.
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The writers of the stream's log, each with how many transitions and the tools it called. */
function WriterPicker(props: { writers: SeenWriter[]; picked: string; onPick: (label: string) => void }) {
  return (
    <label>
      writer{' '}
      <select value={props.picked} onChange={(e) => props.onPick((e.target as HTMLSelectElement).value)} data-testid="undo-writer">
        <option value="">pick a writer…</option>
        {props.writers.map((w) => (
          <option key={w.label} value={w.label}>
            {w.label} ({w.count}){w.tools.length > 0 ? ` · tools: ${w.tools.join(', ')}` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What the preview would publish, per stream, and its conflicts. */
function UndoPlanView(props: { plan: UndoPreview }) {
  const { plan } = props;
  return (
    <div data-testid="undo-plan">
      <p>
        {plan.undone.length} transition{plan.undone.length === 1 ? '' : 's'} undone (seq {plan.undone.join(', ') || 'none'}), after seq {plan.since} through seq {plan.through}.
      </p>
      {Object.entries(plan.patches).map(([stream, patch]) => (
        <div key={stream} data-stream={stream}>
          <h3>
            <code>{stream}</code>
          </h3>
          <pre class="json">{JSON.stringify(patch, null, 2)}</pre>
        </div>
      ))}
      {plan.conflicts.length > 0 && (
        <table class="merge-conflicts" data-testid="undo-conflicts">
          <caption>
            {plan.conflicts.length} conflict{plan.conflicts.length === 1 ? '' : 's'}: another writer changed these paths after the undone writes
          </caption>
          <thead>
            <tr>
              <th scope="col">stream</th>
              <th scope="col">path</th>
              <th scope="col">undone value</th>
              <th scope="col">ours (now)</th>
              <th scope="col">theirs (before)</th>
              <th scope="col">resolution</th>
            </tr>
          </thead>
          <tbody>
            {plan.conflicts.map((c) => (
              <tr key={`${c.stream} ${c.path}`}>
                <td>
                  <code>{c.stream}</code>
                </td>
                <th scope="row">
                  <code>{c.path}</code>
                </th>
                <td>{sideText(c.base)}</td>
                <td>{sideText(c.ours)}</td>
                <td>{sideText(c.theirs)}</td>
                <td>{c.resolution === undefined ? 'open' : typeof c.resolution === 'string' ? c.resolution : 'a value'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
