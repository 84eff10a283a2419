/** The form that selects the effective view of global + cwd + session (blank: left out). */
import { useState } from 'preact/hooks';
import type { Selection } from './types.js';

export function EffectiveForm(props: { onSelect: (s: Selection) => void; selection: Selection | null }) {
  const current = props.selection?.type === 'effective' ? props.selection : null;
  const [global, setGlobal] = useState(current?.global ?? true);
  const [cwd, setCwd] = useState(current?.cwd ?? '');
  const [session, setSession] = useState(current?.session ?? '');
  return (
    <form
      class="effective-form"
      aria-label="Effective view"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSelect({ type: 'effective', global, cwd: cwd.trim(), session: session.trim() });
      }}
    >
      <strong>Effective view</strong>
      <label class="check">
        <input type="checkbox" checked={global} onChange={(e) => setGlobal((e.target as HTMLInputElement).checked)} /> global
      </label>
      <label class="field">
        <span>cwd</span>
        <input value={cwd} placeholder="/abs/dir" onInput={(e) => setCwd((e.target as HTMLInputElement).value)} data-testid="effective-cwd" />
      </label>
      <label class="field">
        <span>session</span>
        <input value={session} placeholder="session id" onInput={(e) => setSession((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">Show effective view</button>
    </form>
  );
}
