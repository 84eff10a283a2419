/**
 * The transition inspector: seq, time, idempotency id, meta (tool, fork, revert, import), every
 * stream the transition changed with its new revision (multi-stream atomicity made visible),
 * the net patch of each, and the hash chain link `prevHash → hash`, checked here against the
 * previous transition's hash (both read from the store API, which verifies each record's own
 * hash as it reads it).
 *
 * Parts: the read (inspect.ts), the link (hash-link.tsx).
 */
import { HashLink } from './hash-link.js';
import { inspect } from './inspect.js';
import { timeText } from './format.js';
import type { InspectedTransition } from './types.js';
import { useLoaded } from './use-loaded.js';

/** The inspector of transition `seq` (none: `null`); `selected` says whether a stream or view is picked at all. */
export function Inspector(props: { seq: number | null; selected: boolean }) {
  const seq = props.seq;
  const loaded = useLoaded((signal) => (seq === null || seq < 1 ? Promise.resolve(null) : inspect(seq, signal)), [seq]);
  const error = loaded.error === null ? null : loaded.error.code === 'HISTORY_NOT_RETAINED' ? `Transition ${seq} was compacted (not retained).` : loaded.error.message;
  const t = error === null ? loaded.value : null;
  return (
    <aside class="inspector" aria-label="Transition inspector" data-testid="inspector">
      <h2>Transition</h2>
      {error !== null && <p class="muted">{error}</p>}
      {t === null && error === null && !props.selected && <p class="muted">Pick a stream on the left to see the transition behind its state.</p>}
      {t === null && error === null && props.selected && <p class="muted">No transition to show: the stream has no revision here, or the transition of this revision was compacted.</p>}
      {t !== null && <TransitionFacts t={t} />}
    </aside>
  );
}

/** What the inspector shows of a transition. */
export function TransitionFacts(props: { t: InspectedTransition }) {
  const t = props.t;
  return (
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
        <dd>{t.meta === undefined ? <span class="muted">none</span> : <MetaTags meta={t.meta} />}</dd>
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
      <HashLink seq={t.seq} link={t.link} />
      <p class="cli">
        <code>stateflow show {t.seq}</code>
      </p>
    </>
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
