/**
 * An audit through a running server does not stop writers (server README "Audit and writers"):
 * a LevelDB store with 10,000 transitions of 4 streams each (written through the library before
 * the server starts, so that an audit takes far longer than one publish), served by a spawned
 * `stateflow serve`. One client of the server audits (`POST /v1/store/audit`, what `stateflow
 * audit` sends through the server) while another publishes through the server, one publish at
 * a time. Publishes committed after the audit's snapshot (seq above the transitions it
 * audited) are acknowledged before the audit's answer arrives: order of completion, not a
 * timing threshold. An audit that held the writer for its duration would let at most the one
 * publish in flight through, answered after it. Both audits, that one and `stateflow audit`
 * (a spawned CLI, through the server) afterwards, are clean.
 */
import path from 'node:path';
import { openRemoteStore } from '@stateflow/client';
import { openStore } from '@stateflow/store-leveldb';
import type { Store } from '@stateflow/store';
import { auditWhilePublishing, fillForAudit } from '@stateflow/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, stateflow, tempDir } from '../cli/helpers.js';
import { discovery, spawnServe, type ServeProcess } from './processes.js';

const TRANSITIONS = 10_000;

let root: string;
let dir: string;
let server: ServeProcess | undefined;
let remote: Store | undefined;

beforeAll(async () => {
  root = await tempDir('audit-served');
  dir = path.join(root, 'store');
  const store = await openStore(dir, { durability: 'buffered' });
  await fillForAudit(store, TRANSITIONS);
  await store.close();
  server = await spawnServe(dir);
  const { url, token } = await discovery(dir);
  remote = await openRemoteStore({ url, token });
});

afterAll(async () => {
  await remote?.close();
  await server?.stop();
  await removeDir(root);
});

describe('an audit through the server', () => {
  it('lets publishes through while it runs, and is clean', async () => {
    const { url, token } = await discovery(dir);
    const auditor = await openRemoteStore({ url, token });
    const { report, committedDuringAudit, acknowledged } = await auditWhilePublishing(auditor, remote as Store);
    await auditor.close();
    expect(report.problems).toEqual([]);
    // The first publish may reach the server before the audit takes its snapshot.
    expect(report.transitions).toBeGreaterThanOrEqual(TRANSITIONS);
    expect(committedDuringAudit).toBeGreaterThanOrEqual(3);
    expect(acknowledged).toEqual(Array.from({ length: acknowledged.length }, (_, i) => TRANSITIONS + 1 + i));

    const cli = await stateflow(['--dir', dir, '--json', 'audit']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ problems: [], transitions: TRANSITIONS + acknowledged.length });
  });
});
