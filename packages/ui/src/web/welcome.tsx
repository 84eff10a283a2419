/** What the centre shows before a selection: how to start, and a button to open the newest stream. */
import { get, query } from './api.js';
import type { Selection, StreamPage } from './types.js';
import { useLoaded } from './use-loaded.js';

export function Welcome(props: { onPick: (s: Selection) => void }) {
  const page = useLoaded((signal) => get<StreamPage>(`/v1/history/streams${query({ limit: 5 })}`, signal), []).value;
  const first = page?.streams[0];
  return (
    <section class="welcome">
      <h2>Pick a stream</h2>
      <p>Choose a stream in the rail (or the effective view of a selection), then drag the time cursor to see it as of any transition.</p>
      {page !== null && page.streams.length === 0 && <p>This store has no transitions yet.</p>}
      {first !== undefined && (
        <button type="button" onClick={() => props.onPick({ type: 'stream', stream: first.stream })}>
          Open {first.stream}
        </button>
      )}
    </section>
  );
}
