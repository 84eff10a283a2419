/** The dialog asking for a token or API key after the server answered 401. */
import { useState } from 'preact/hooks';

export function KeyPrompt(props: { onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="key-title">
      <h2 id="key-title">This server needs a token or API key</h2>
      <p>
        Open the URL <code>stateflow serve</code> printed (it carries the token after <code>#token=</code>), or paste your API key. It is kept in this tab's session storage only.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onKey(key.trim());
        }}
      >
        <label class="field">
          <span>Token or API key</span>
          <input type="password" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} autoFocus data-testid="key-input" />
        </label>
        <button type="submit">Use it</button>
      </form>
    </div>
  );
}
