/**
 * The audit as a background job on the server (`/v1/history/audit-job`, the store's owner only):
 * start (or join the running one), cancel, and the job's progress followed over Server-Sent
 * Events (`…/events`, a streamed `fetch` with the credential) until it ends.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, del, events, get, post } from './api.js';
import type { AuditJob } from './types.js';

/** What {@link useAuditJob} hands out. */
export interface AuditJobState {
  job: AuditJob | null;
  error: string | null;
  start: () => void;
  cancel: () => void;
}

export function useAuditJob(): AuditJobState {
  const [job, setJob] = useState<AuditJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const following = useRef<AbortController | null>(null);
  const fail = (err: unknown) => setError(err instanceof ApiError && err.code === 'FORBIDDEN' ? "The audit is for the store's owner (the server token)." : err instanceof Error ? err.message : String(err));

  const follow = async (): Promise<void> => {
    following.current?.abort();
    const controller = new AbortController();
    following.current = controller;
    try {
      for await (const event of events('/v1/history/audit-job/events', controller.signal)) {
        const data = JSON.parse(event.data) as AuditJob | { done: number; total: number };
        if (event.event === 'job') setJob(data as AuditJob);
        else if (event.event === 'progress') setJob((j) => (j === null ? j : { ...j, ...(data as { done: number; total: number }) }));
      }
    } catch (err) {
      if (!controller.signal.aborted) fail(err);
    }
  };

  useEffect(() => {
    get<{ job: AuditJob | null }>('/v1/history/audit-job').then(
      (answer) => {
        setJob(answer.job);
        if (answer.job?.state === 'running') void follow();
      },
      () => undefined,
    );
    return () => following.current?.abort();
  }, []);

  const start = () => {
    setError(null);
    post<{ started: boolean; job: AuditJob }>('/v1/history/audit-job', {}).then((answer) => {
      setJob(answer.job);
      void follow();
    }, fail);
  };
  const cancel = () => void del<{ job: AuditJob | null }>('/v1/history/audit-job').then(() => undefined, fail);
  return { job, error, start, cancel };
}
