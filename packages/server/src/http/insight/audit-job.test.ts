/**
 * The audit job on a real store (memory backend): one job at a time, a cancel that stops it at
 * the next log record, findings linked to the transition or revision their key names.
 */
import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '@stateflow/store';
import type { AuditJob } from '@stateflow/http-contract';
import { AuditJobs, findingsOf } from './audit-job.js';

async function storeWith(transitions: number) {
  const store = await openMemoryStore();
  for (let i = 1; i <= transitions; i++) await store.publish({ changes: { global: { n: i } } });
  return store;
}

function ended(jobs: AuditJobs): Promise<AuditJob> {
  return new Promise((resolve) => {
    const stop = jobs.subscribe({ progress: () => undefined, end: (job) => (stop(), resolve(job)) });
  });
}

describe('AuditJobs', () => {
  it('runs one job at a time: a start while one runs joins it, and the job ends done with the report', async () => {
    const store = await storeWith(20);
    const jobs = new AuditJobs(store, () => new Date('2026-12-02T00:00:00Z'));
    const end = ended(jobs);
    const first = jobs.start();
    const second = jobs.start();
    expect(first.started).toBe(true);
    expect(second).toEqual({ started: false, job: first.job });
    const job = await end;
    expect(job).toMatchObject({ id: first.job.id, state: 'done', done: 20, total: 20, report: { transitions: 20, problems: [] }, findings: [], endedAt: '2026-12-02T00:00:00.000Z' });
    expect(jobs.start().job.id).not.toBe(first.job.id);
    await ended(jobs);
    await store.close();
  });

  it('a cancel stops the job at the next record it verifies', async () => {
    const store = await storeWith(20);
    const jobs = new AuditJobs(store, () => new Date());
    const end = ended(jobs);
    jobs.start();
    jobs.cancel();
    const job = await end;
    expect(job.state).toBe('cancelled');
    expect(job.report).toBeUndefined();
    expect(job.done).toBe(0);
    expect(jobs.running()).toBe(false);
    await store.close();
  });

  it('links each finding to the seq or revision its key names', () => {
    const problems = [
      { code: 'HASH_MISMATCH', key: 'L/12', detail: 'x' },
      { code: 'INDEX_MISMATCH', stream: 'cwd:/a/b', key: 'S/cwd:/a/b/7', detail: 'y' },
      { code: 'CHECKPOINT_MISMATCH', stream: 'cwd:/a/b', key: 'C/cwd:/a/b/64', detail: 'z' },
      { code: 'TIP_MISMATCH', key: 'M/tip', detail: 'w' },
    ];
    expect(findingsOf({ transitions: 1, streams: 1, checkpoints: 1, problems }).map((f) => [f.seq, f.rev])).toEqual([
      [12, undefined],
      [7, undefined],
      [undefined, 64],
      [undefined, undefined],
    ]);
  });
});
