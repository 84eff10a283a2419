/**
 * An audit while a writer goes on (DESIGN "Tamper evidence": an audit reads one snapshot, so
 * writers are not stopped), for a store backend's tests: fill a store so that an audit takes far
 * longer than a publish ({@link fillForAudit}), then audit through one store object while
 * another publishes ({@link auditWhilePublishing}). The kit imports no store package: it takes
 * the two methods it calls.
 */
import { whilePending } from './while-pending.js';

/** What the helpers publish with (a `Store` of `@stateflow/store`, local or remote; `null`: a no-op). */
export interface Publisher {
  publish(input: { changes: Record<string, { [key: string]: unknown }> }): Promise<{ transition: { seq: number } | null }>;
}

/**
 * Publish `count` transitions, one after another, each changing 4 of 50 `session:` streams with
 * a ~200-byte value (seqs 1…count on an empty store).
 */
export async function fillForAudit(store: Publisher, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const changes = Object.fromEntries(Array.from({ length: 4 }, (_, j) => [`session:s${(i + j * 13) % 50}`, { [`k${i % 20}`]: { i, j, text: 'x'.repeat(200) } }]));
    await store.publish({ changes });
  }
}

/** What {@link auditWhilePublishing} saw. */
export interface AuditWhilePublishing<R> {
  /** The audit's report. */
  report: R;
  /**
   * Publishes committed after the audit's snapshot (seq above the transitions it audited) and
   * acknowledged before the audit completed: more than one means the audit did not hold the
   * writer (a held writer lets at most the one publish in flight through, after the audit).
   */
  committedDuringAudit: number;
  /** The seq of every publish, in the order they were acknowledged. */
  acknowledged: number[];
}

/**
 * Run `auditor.audit()` and, until it completes, publish through `writer` one publish at a time
 * (stream `session:live`, `{ n }`): order of completion, not a timing threshold.
 * @throws what the audit or a publish rejects with; Error for a publish that was a no-op
 */
export async function auditWhilePublishing<R extends { transitions: number }>(auditor: { audit(): Promise<R> }, writer: Publisher): Promise<AuditWhilePublishing<R>> {
  let n = 0;
  const { value: report, during, after } = await whilePending(auditor.audit(), async () => {
    const { transition } = await writer.publish({ changes: { 'session:live': { n: ++n } } });
    // Each publish sets a new n, so none is a no-op.
    if (transition === null) throw new Error(`publish ${n} of session:live was a no-op`);
    return transition.seq;
  });
  return { report, committedDuringAudit: during.filter((seq) => seq > report.transitions).length, acknowledged: [...during, ...after] };
}
