/**
 * The transition inspector: seq, time, idempotency id, meta (tool, fork, revert, import), every
 * stream the transition changed with its new revision (multi-stream atomicity made visible),
 * the net patch of each, and the hash chain link `prevHash → hash`, checked here against the
 * previous transition's hash (both read from the store API, which verifies each record's own
 * hash as it reads it).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.js';
import { timeText } from './format.js';
import type { InspectedTransition, Transition } from './types.js';

const ZERO_HASH = '0'.repeat(64);

/** The transition at `seq` with its link to `seq − 1` checked. */
async function inspect(seq: number, signal: AbortSignal): Promise<InspectedTransition> {
  const t = await get<Transition & { prevHash?: string; hash?: string }>(`/v1/store/transitions/${seq}`, signal);
  const { prevHash, hash, ...rest } = t;
  // A transition shown in part (streams of other users left out) comes without hashes.
  if (prevHash === undefined || hash === undefined) return { ...rest, link: null };
  let previous: string | null = ZERO_HASH;
  if (seq > 1) {
    try {
      previous = (await get<Transition>(`/v1/store/transitions/${seq - 1}`, signal)).hash ?? null;
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'HISTORY_NOT_RETAINED' && err.code !== 'TRANSITION_NOT_FOUND')) throw err;
      previous = null;
    }
  }
  return { ...rest, link: { prevHash, hash, previous, verified: previous === null ? null : previous === prevHash } };
}

export function Inspector(props: { seq: number | null }) {
  const [t, setT] = useState<InspectedTransition | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (props.seq === null || props.seq < 1) {
      setT(null);
      setError(null);
      return;
    }
    const controller = new AbortController();
    inspect(props.seq, controller.signal)
      .then((x) => {
        setT(x);
        setError(null);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setT(null);
        setError(err instanceof ApiError && err.code === 'HISTORY_NOT_RETAINED' ? `Transition ${props.seq} was compacted (not retained).` : String((err as Error).message));
      });
    return () => controller.abort();
  }, [props.seq]);

  return (
    <aside class="inspector" aria-label="Transition inspector" data-testid="inspector">
      <h2>Transition</h2>
      {error !== null && <p class="muted">{error}</p>}
      {t === null && error === null && <p class="muted">No transition to show: the stream has no revision here, or the transition of this revision was compacted.</p>}
      {t !== null && (
        <>
          <dl class="facts">
            <dt>seq</dt>
            <dd data-testid="inspector-seq">{t.seq}</dd>
            <dt>time</dt>
            <dd>
              {timeText(t.time)} <span class="muted small">{t.time}</span>
            </dd>
            <dt>idempotency id</dt>
            <dd>{t.id ?? <span class="muted">none</span>}</dd>
            <dt>meta</dt>
            <dd>
              {t.meta === undefined ? <span class="muted">none</span> : <MetaTags meta={t.meta} />}
            </dd>
          </dl>
          <h3>Changed streams ({t.changes.length})</h3>
          {t.link === null && <p class="muted small">and streams not visible to you</p>}
          <ul class="changes">
            {t.changes.map((c) => (
              <li key={c.stream}>
                <details open={t.changes.length === 1}>
                  <summary>
                    {c.stream} → rev {c.rev}
                  </summary>
                  <pre class="json" data-testid="inspector-patch">{JSON.stringify(c.patch, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ul>
          <h3>Hash chain</h3>
          {t.link === null ? (
            <p class="muted small">Not shown: the transition also changed streams you cannot see, so its hashed body is not all here.</p>
          ) : (
            <p class="hash">
              <code title={t.link.prevHash}>{t.link.prevHash.slice(0, 12)}…</code> → <code title={t.link.hash}>{t.link.hash.slice(0, 12)}…</code>{' '}
              <span class={t.link.verified === true ? 'badge ok' : t.link.verified === false ? 'badge bad' : 'badge'} data-testid="hash-verified">
                {t.link.verified === true
                  ? t.seq === 1
                    ? '✓ verified: the first transition (prevHash is 64 zeros)'
                    : `✓ verified: prevHash is the hash of seq ${t.seq - 1}`
                  : t.link.verified === false
                    ? '✗ prevHash does not match the previous transition'
                    : 'previous transition compacted or not visible'}
              </span>
            </p>
          )}
          <p class="cli">
            <code>stateflow show {t.seq}</code>
          </p>
        </>
      )}
    </aside>
  );
}

function MetaTags(props: { meta: Record<string, unknown> }) {
  return (
    <ul class="meta">
      {Object.entries(props.meta).map(([key, value]) => (
        <li key={key}>
          <span class="badge">{key}</span> <code>{JSON.stringify(value)}</code>
        </li>
      ))}
    </ul>
  );
}
