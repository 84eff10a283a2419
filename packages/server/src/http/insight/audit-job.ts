/**
 * The audit as a background job (contract `auditJobStartRoute` …): store `audit` takes about
 * 38 s per million transitions, longer than a request should wait, so the server runs it on its
 * own and the page follows its progress. One job at a time per store: a start while one runs
 * joins it. A cancel takes effect at the next log record the audit verifies (the audit reports
 * each through `onProgress`, which then throws {@link AuditCancelled}; the audit writes nothing,
 * so stopping it anywhere is safe). The latest job is kept, with its report, until the next one.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { isStateflowError } from '@stateflow/core';
import type { AuditJob } from '@stateflow/http-contract';
import type { AuditProblem, AuditReport, Store } from '@stateflow/store';

/** Least time between two progress events, in ms. */
export const PROGRESS_INTERVAL_MS = 100;

/** Thrown from the audit's progress callback to stop it. */
class AuditCancelled extends Error {}

/** A finding of the report, with the transition (seq) or revision its key names. */
type Finding = NonNullable<AuditJob['findings']>[number];

/** What a job's listeners receive: progress as it goes, the job when it ends. */
export interface AuditJobEvents {
  progress: [{ done: number; total: number }];
  end: [AuditJob];
}

/** The audit jobs of one store (see the module comment). */
export class AuditJobs {
  #job: AuditJob | null = null;
  #cancel: AbortController | null = null;
  readonly #events = new EventEmitter<AuditJobEvents>();

  constructor(
    private readonly store: Store,
    private readonly clock: () => Date,
  ) {}

  /** The latest job (a copy), or `null` before the first. */
  latest(): AuditJob | null {
    return this.#job === null ? null : structuredClone(this.#job);
  }

  /** Whether a job is running. */
  running(): boolean {
    return this.#job?.state === 'running';
  }

  /** Start a job, or join the running one (`started: false`). */
  start(): { started: boolean; job: AuditJob } {
    if (this.#job !== null && this.running()) return { started: false, job: structuredClone(this.#job) };
    const job: AuditJob = { id: randomUUID(), state: 'running', startedAt: this.clock().toISOString(), done: 0, total: 0 };
    const cancel = new AbortController();
    this.#job = job;
    this.#cancel = cancel;
    void this.#run(job, cancel.signal);
    return { started: true, job: structuredClone(job) };
  }

  /** Ask the running job to stop; nothing when none runs. */
  cancel(): void {
    this.#cancel?.abort();
  }

  /** Listen to the jobs' events; returns the function that stops listening. */
  subscribe(listeners: { progress(p: { done: number; total: number }): void; end(job: AuditJob): void }): () => void {
    this.#events.on('progress', listeners.progress);
    this.#events.on('end', listeners.end);
    return () => {
      this.#events.off('progress', listeners.progress);
      this.#events.off('end', listeners.end);
    };
  }

  async #run(job: AuditJob, signal: AbortSignal): Promise<void> {
    let shown = 0;
    const onProgress = (done: number, total: number): void => {
      if (signal.aborted) throw new AuditCancelled('cancelled');
      job.done = done;
      job.total = total;
      const now = Date.now();
      if (now - shown >= PROGRESS_INTERVAL_MS || done === total) {
        shown = now;
        this.#events.emit('progress', { done, total });
      }
    };
    try {
      const report = await this.store.audit({ onProgress });
      Object.assign(job, { state: 'done', report, findings: findingsOf(report) });
    } catch (err) {
      if (err instanceof AuditCancelled) job.state = 'cancelled';
      else Object.assign(job, { state: 'failed', error: { code: isStateflowError(err) ? err.code : 'INTERNAL', message: err instanceof Error ? err.message : String(err) } });
    }
    job.endedAt = this.clock().toISOString();
    this.#cancel = null;
    this.#events.emit('end', structuredClone(job));
  }
}

/** The report's problems, each with the seq (log and seq-index keys) or revision (revision-index and checkpoint keys) its key names. */
export function findingsOf(report: AuditReport): Finding[] {
  return report.problems.map((problem: AuditProblem): Finding => {
    const key = problem.key ?? '';
    const log = /^L\/(\d+)$/.exec(key) ?? /^S\/.+\/(\d+)$/.exec(key);
    const rev = /^[RC]\/.+\/(\d+)$/.exec(key);
    return { ...problem, ...(log !== null ? { seq: Number(log[1]) } : rev !== null ? { rev: Number(rev[1]) } : {}) };
  });
}

const jobsByStore = new WeakMap<Store, AuditJobs>();

/** The audit jobs of `store` (one set per store, shared by every server on it in this process). */
export function auditJobsOf(store: Store, clock: () => Date): AuditJobs {
  let jobs = jobsByStore.get(store);
  if (jobs === undefined) {
    jobs = new AuditJobs(store, clock);
    jobsByStore.set(store, jobs);
  }
  return jobs;
}
