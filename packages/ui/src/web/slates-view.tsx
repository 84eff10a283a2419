/**
 * The slates of a ladder session as of the call at the cursor (each slate-stream revision is one
 * call): folders, files with their contents, user metatags and system metatags, and the diff the
 * call made.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, query } from './api.js';
import { CHANGE_MARK, shownText, timeText } from './format.js';
import type { SlatesAtCall } from './types.js';

export function SlatesView(props: { stream: string; rev: number }) {
  const [view, setView] = useState<SlatesAtCall | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    get<SlatesAtCall>(`/v1/history/slates${query({ stream: props.stream, rev: props.rev })}`, controller.signal)
      .then((v) => {
        setView(v);
        setError(null);
      })
      .catch((err: Error) => controller.signal.aborted || setError(err.message));
    return () => controller.abort();
  }, [props.stream, props.rev]);
  if (error !== null) return <p role="alert" class="error">{error}</p>;
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
            <div key={folder.path} class="folder">
              <h4>folder {folder.path}</h4>
              <table>
                <thead>
                  <tr>
                    <th scope="col">file</th>
                    <th scope="col">contents</th>
                    <th scope="col">metatags</th>
                    <th scope="col">system metatags</th>
                  </tr>
                </thead>
                <tbody>
                  {folder.files.map((file) => (
                    <tr key={file.name}>
                      <th scope="row">{file.name}</th>
                      <td>
                        <pre class="contents">{file.contents === '' ? '(empty)' : file.contents}{file.truncated ? '…' : ''}</pre>
                      </td>
                      <td>{Object.keys(file.metatags).length === 0 ? <span class="muted">none</span> : <code>{JSON.stringify(file.metatags)}</code>}</td>
                      <td class="small">
                        size {file.system.size} B · {file.system.tokens} tokens
                        <br />
                        created {timeText(file.system.created)}
                        <br />
                        modified {timeText(file.system.modified)}
                        {file.system.lastRead !== undefined && (
                          <>
                            <br />
                            last read {timeText(file.system.lastRead)}
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        </article>
      ))}
      <h3>What call {view.rev} changed</h3>
      {view.call === null ? (
        <p class="muted">Not known (the call before it was compacted, or this is the first revision).</p>
      ) : view.call.entries.length === 0 ? (
        <p class="muted">Nothing (a read-only call records only its read times).</p>
      ) : (
        <ul class="call-diff" data-testid="slates-call-diff">
          {view.call.entries
            .filter((e) => e.container === undefined)
            .map((e) => (
              <li key={e.pointer} class={e.change}>
                <span class="sign" aria-label={CHANGE_MARK[e.change].label}>
                  {CHANGE_MARK[e.change].sign}
                </span>{' '}
                <code>{e.pointer}</code>: {e.change !== 'added' && shownText(e.before)}
                {e.change === 'changed' && ' → '}
                {e.change !== 'removed' && shownText(e.after)}
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}
