/**
 * The slates of a ladder session as of the call at the cursor (each slate-stream revision is one
 * call): folders, files with their contents, user metatags and system metatags, and the diff the
 * call made.
 *
 * Parts: a folder (slate-folder.tsx), the call's diff (call-diff.tsx).
 */
import { get, query } from './api.js';
import { CallDiff } from './call-diff.js';
import { timeText } from './format.js';
import { SlateFolder } from './slate-folder.js';
import type { SlatesAtCall } from './types.js';
import { useLoaded } from './use-loaded.js';

export function SlatesView(props: { stream: string; rev: number }) {
  const { value: view, error } = useLoaded(
    (signal) => get<SlatesAtCall>(`/v1/history/slates${query({ stream: props.stream, rev: props.rev })}`, signal),
    [props.stream, props.rev],
  );
  if (error !== null) return <p role="alert" class="error">{error.message}</p>;
  if (view === null) return <p>Loading slates…</p>;
  return (
    <section class="slates" aria-label="Slates" data-testid="slates">
      <h2>
        Slates as of call {view.rev} <span class="muted small">(seq {view.seq} · {timeText(view.time)})</span>
      </h2>
      {view.slates.map((slate) => (
        <article key={slate.title} class="slate">
          <h3>slate {slate.title}</h3>
          {slate.folders.map((folder) => (
            <SlateFolder key={folder.path} folder={folder} />
          ))}
        </article>
      ))}
      <CallDiff rev={view.rev} call={view.call} />
    </section>
  );
}
