/**
 * An audit does not stop writers on PostgreSQL: two store instances on one schema (as two
 * processes would open it), the store filled with 4,000 transitions of 4 streams each so that
 * an audit takes far longer than one publish. One instance audits while the other publishes,
 * one publish at a time: publishes committed after the audit's snapshot complete before the
 * audit does — order of completion, not a timing threshold (a held writer would let at most the
 * one publish in flight through, after the audit). The audit is clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditWhilePublishing, fillForAudit, freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import type { Store } from '@stateflow/store';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';

const server = await testPostgres();
const TRANSITIONS = 4_000;

describe.skipIf('unavailable' in server)('PostgreSQL: an audit while another instance writes', () => {
  const url = freshPostgresUrl('audit');
  let auditor: Store;
  let writer: Store;
  beforeAll(async () => {
    auditor = await openPostgresStore(url, { durability: 'buffered' });
    await fillForAudit(auditor, TRANSITIONS);
    writer = await openPostgresStore(url);
  });
  afterAll(async () => {
    await writer?.close();
    await auditor?.close();
    await dropPostgresStore(url);
  });

  it('lets the other instance publish while it runs, and is clean', async () => {
    const { report, committedDuringAudit, acknowledged } = await auditWhilePublishing(auditor, writer);
    // A publish (one round trip) may commit before the audit's snapshot begins: the audit covers
    // the log as of its snapshot, whatever came before it.
    expect(report.problems).toEqual([]);
    expect(report.transitions).toBeGreaterThanOrEqual(TRANSITIONS);
    expect(report.transitions).toBeLessThanOrEqual(TRANSITIONS + 2);
    expect(committedDuringAudit).toBeGreaterThanOrEqual(3);
    expect(acknowledged).toEqual(Array.from({ length: acknowledged.length }, (_, i) => TRANSITIONS + 1 + i));
    expect(await writer.audit()).toMatchObject({ problems: [], transitions: TRANSITIONS + acknowledged.length });
  });
});
