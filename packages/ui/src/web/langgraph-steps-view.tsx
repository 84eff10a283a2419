/**
 * A LangGraph thread as steps (`GET /v1/history/langgraph-steps`), as LangGraph Studio lists a
 * thread's checkpoints: step number and source, the channels that changed, the messages as
 * LangGraph shows them (type and content, not the stored `$len` / `$null` form), the other
 * channel values, and the pending writes with the task (and node) that wrote them. A step's
 * "go to" moves the cursor to its checkpoint's transition.
 */
import { get, query } from './api.js';
import { timeText } from './format.js';
import type { LangGraphStep, LangGraphSteps } from './types.js';
import { useLoaded } from './use-loaded.js';

/** Steps per page (the server's default page). */
const STEPS = 200;

/** Any decoded value (LangGraph's may hold `null`) as JSON on one line, cut at `max` characters. */
export function valueLine(value: unknown, max = 160): string {
  const text = JSON.stringify(value);
  if (text === undefined) return '(absent)';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A message as one line: its type and its text (content that is not text, as JSON). */
export function messageLine(message: unknown): { type: string; text: string } {
  const m = (typeof message === 'object' && message !== null ? message : {}) as { type?: unknown; content?: unknown };
  return { type: typeof m.type === 'string' ? m.type : 'value', text: typeof m.content === 'string' ? m.content : valueLine(m.content) };
}

export function LangGraphStepsView(props: { stream: string; onSeq: (seq: number) => void }) {
  const loaded = useLoaded((signal) => get<LangGraphSteps>(`/v1/history/langgraph-steps${query({ stream: props.stream, limit: STEPS })}`, signal), [props.stream]);
  if (loaded.error !== null) return <p role="alert" class="error">{loaded.error.message}</p>;
  const thread = loaded.value;
  if (thread === null) return <p class="muted">Loading the thread…</p>;
  return (
    <section class="steps" aria-label="LangGraph steps" data-testid="langgraph-steps">
      <p class="muted small">
        Thread {thread.thread_id ?? '?'}: {thread.steps.length} checkpoints{thread.next !== null ? ' (more follow)' : ''}.
      </p>
      <ol class="step-list">
        {thread.steps.map((step) => (
          <li key={step.checkpoint_id}>
            <StepCard step={step} onSeq={props.onSeq} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function StepCard(props: { step: LangGraphStep; onSeq: (seq: number) => void }) {
  const s = props.step;
  const others = Object.entries(s.channel_values).filter(([channel]) => channel !== 'messages');
  return (
    <article class="step" data-testid="langgraph-step" data-step={s.step ?? ''}>
      <header>
        <strong>step {s.step ?? '?'}</strong> <span class="badge">{s.source ?? '?'}</span>{' '}
        <span class="muted small">
          rev {s.rev} · seq {s.seq} · {timeText(s.ts || s.time)}
        </span>{' '}
        <button type="button" onClick={() => props.onSeq(s.seq)}>
          go to
        </button>
      </header>
      {s.changed.length > 0 && <p class="small">changed: {s.changed.join(', ')}</p>}
      {s.messages.length > 0 && (
        <ol class="messages" data-testid="step-messages">
          {s.messages.map((m, i) => {
            const line = messageLine(m);
            return (
              <li key={i} class={`message type-${line.type}`}>
                <span class="badge">{line.type}</span> {line.text}
              </li>
            );
          })}
        </ol>
      )}
      {others.length > 0 && (
        <dl class="facts small">
          {others.map(([channel, value]) => (
            <>
              <dt key={`k${channel}`}>{channel}</dt>
              <dd key={`v${channel}`}>{valueLine(value, 200)}</dd>
            </>
          ))}
        </dl>
      )}
      {s.pending_writes.length > 0 && (
        <ul class="writes small" data-testid="step-writes">
          {s.pending_writes.map((w, i) => (
            <li key={i}>
              {w.node ?? 'task'} <span class="muted">({w.task_id.slice(0, 8)})</span> → {w.channel}: {valueLine(w.value, 200)}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
