/**
 * Read replicas (README "Read replicas"), on a real primary + hot standby made for this file
 * (`startPostgresPair`: initdb, pg_basebackup -R, pg_ctl in a temporary folder): a store opened
 * with the standby as a read replica serves historical reads from it once it has replayed what
 * they need — no query of those reads reaches the primary — and everything else from the
 * primary; while the standby lags (replay paused) or is stopped, every read is still the
 * primary's answer, never an older one. Every read is checked against a store on the primary
 * alone. Queries are counted per server by wrapping `pg`'s `Client.prototype.query` (counting
 * only, the queries run as they are).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import type { Store, Transition } from '@stateflow/store';
import { startPostgresPair, type PostgresPair } from '@stateflow/test-kit';
import { openPostgresStore } from './open-postgres-store.js';

const pair = await startPostgresPair();
const STREAMS = ['global', 'session:a', 'cwd:/repo'];

/** Queries sent, per server port. */
const sent = new Map<number, number>();
const query = pg.Client.prototype.query;
/** How many queries went to `port` while `work` ran. */
async function queriesTo<T>(port: number, work: () => Promise<T>): Promise<{ value: T; queries: number }> {
  const before = sent.get(port) ?? 0;
  const value = await work();
  return { value, queries: (sent.get(port) ?? 0) - before };
}
const portOf = (url: string): number => Number(new URL(url).port);

describe.skipIf('unavailable' in pair)('PostgreSQL: read replicas', () => {
  const { primaryUrl, standbyUrl, stopStandby, startStandby, stop } = pair as PostgresPair;
  const url = `${primaryUrl}?schema=sf_replica`;
  let writer: Store;
  let reader: Store;
  let primary: pg.Client;
  let standby: pg.Client;

  /** Wait until the standby has replayed everything the primary has written so far. */
  const caughtUp = async (): Promise<void> => {
    const lsn = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]?.lsn;
    for (let i = 0; i < 400; i++) {
      const done = await standby.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
      if (done.rows[0]?.done === true) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the standby did not catch up');
  };

  /** Every historical read of `stream` at `rev` and of the log, through `store`. */
  const readAll = async (store: Store, stream: string, rev: number, seq: number): Promise<unknown> => {
    const log: Transition[] = [];
    for await (const t of store.transitions({ from: Math.max(1, seq - 5), to: seq })) log.push(t);
    return {
      state: await store.stateAt(stream, rev),
      patch: rev > 0 ? await store.patchAt(stream, rev) : null,
      states: await store.statesAt(STREAMS, seq),
      transition: await store.transition(seq),
      log,
      diff: await store.diff(stream, Math.max(0, rev - 3), rev),
    };
  };

  beforeAll(async () => {
    pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
      sent.set(this.port, (sent.get(this.port) ?? 0) + 1);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    primary = new pg.Client({ connectionString: primaryUrl });
    standby = new pg.Client({ connectionString: standbyUrl });
    for (const client of [primary, standby]) client.on('error', () => undefined);
    await primary.connect();
    await standby.connect();
    writer = await openPostgresStore(url, { checkpointInterval: 4 });
    for (let i = 1; i <= 40; i++) await writer.publish({ changes: { [STREAMS[i % 3] as string]: { [`k${i % 7}`]: i, n: i } } });
    // No history cache: every historical read reads records.
    reader = await openPostgresStore(url, { readReplicas: [standbyUrl], checkpointInterval: 4, cacheSize: 0 });
  });
  afterAll(async () => {
    pg.Client.prototype.query = query;
    await reader?.close();
    await writer?.close();
    await primary?.end();
    await standby?.end().catch(() => undefined);
    await stop();
  });

  it('a caught-up replica serves the historical reads: none of their queries reach the primary, every answer is the primary’s', async () => {
    await caughtUp();
    const heads = await reader.streams();
    // Current states (what writes need) are the primary's, loaded once.
    for (const stream of STREAMS) await reader.state(stream);
    for (const { stream, rev, seq } of heads) {
      const expected = await readAll(writer, stream, rev - 1, seq);
      const served = await queriesTo(portOf(primaryUrl), () => readAll(reader, stream, rev - 1, seq));
      expect(served.value).toEqual(expected);
      expect(served.queries).toBe(0);
    }
    const onReplica = await queriesTo(portOf(standbyUrl), () => reader.stateAt('global', 3));
    expect(onReplica.queries).toBeGreaterThan(0);
    // The audit runs on the replica's snapshot once it covers the primary's tip (one tip read on the primary).
    const audit = await queriesTo(portOf(primaryUrl), () => reader.audit());
    expect(audit.value.problems).toEqual([]);
    expect(audit.value.transitions).toBe(40);
    expect(audit.queries).toBe(1);
  });

  it('an open range of the log (what `stateflow log` reads) is served by a caught-up replica after one tip read on the primary', async () => {
    await caughtUp();
    const collect = async (store: Store): Promise<Transition[]> => {
      const log: Transition[] = [];
      for await (const t of store.transitions({ from: 3 })) log.push(t);
      return log;
    };
    const expected = await collect(writer);
    const onReplica = await queriesTo(portOf(standbyUrl), async () => queriesTo(portOf(primaryUrl), () => collect(reader)));
    expect(onReplica.value.value).toEqual(expected);
    expect(onReplica.value.queries).toBe(1);
    expect(onReplica.queries).toBeGreaterThan(0);
  });

  it('a lagging replica (replay paused) never answers older data: reads it lacks go to the primary', async () => {
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      const newer: { stream: string; rev: number; seq: number }[] = [];
      for (let i = 41; i <= 52; i++) {
        const r = await writer.publish({ changes: { [STREAMS[i % 3] as string]: { [`k${i % 7}`]: i, n: i } } });
        const change = r.transition?.changes[0];
        if (change !== undefined) newer.push({ stream: change.stream, rev: change.rev, seq: r.transition?.seq ?? 0 });
      }
      // First the reads a lagging copy would answer without an error (an older audit, an older revision as of a seq).
      expect((await reader.audit()).transitions).toBe(52);
      for (const { seq } of newer) expect(await reader.statesAt(STREAMS, seq)).toEqual(await writer.statesAt(STREAMS, seq));
      for (const { stream, rev, seq } of newer) {
        expect(await readAll(reader, stream, rev, seq)).toEqual(await readAll(writer, stream, rev, seq));
      }
      const all: Transition[] = [];
      for await (const t of reader.transitions()) all.push(t);
      expect(all.map((t) => t.seq)).toEqual(Array.from({ length: 52 }, (_, i) => i + 1));
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()');
    }
  });

  it('a replica stopped mid-run: every read falls back to the primary and stays right; it is used again once back', async () => {
    await caughtUp();
    await standby.end();
    const expected = new Map<string, unknown>();
    const cases: [string, number][] = [];
    for (const { stream, rev } of await writer.streams()) for (let r = 1; r <= rev; r += 2) cases.push([stream, r]);
    for (const [stream, rev] of cases) expected.set(`${stream}/${rev}`, await writer.stateAt(stream, rev));
    const answers: JsonObject[] = [];
    for (const [i, [stream, rev]] of cases.entries()) {
      if (i === Math.floor(cases.length / 3)) await stopStandby();
      answers.push(await reader.stateAt(stream, rev));
    }
    expect(answers).toEqual(cases.map(([stream, rev]) => expected.get(`${stream}/${rev}`)));
    const all: Transition[] = [];
    for await (const t of reader.transitions({ to: 52 })) all.push(t);
    expect(all.length).toBe(52);
    await writer.publish({ changes: { global: { after: 'stop' } } });
    expect(await reader.state('global')).toEqual(await writer.state('global'));

    await startStandby();
    standby = new pg.Client({ connectionString: standbyUrl });
    standby.on('error', () => undefined);
    await standby.connect();
    await caughtUp();
    // Passed over for a while after its failure, then used again.
    let used = 0;
    for (let i = 0; i < 200 && used === 0; i++) {
      used = (await queriesTo(portOf(standbyUrl), () => reader.stateAt('session:a', 2))).queries;
      if (used === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(used).toBeGreaterThan(0);
    expect(await reader.stateAt('session:a', 2)).toEqual(await writer.stateAt('session:a', 2));
  });

  it('writes, heads and watches go to the primary; a replica URL naming another schema is USAGE', async () => {
    const before = sent.get(portOf(standbyUrl)) ?? 0;
    await reader.publish({ changes: { 'session:a': { written: true } }, expected: { 'session:a': (await reader.head('session:a')).rev } });
    expect(await writer.state('session:a')).toMatchObject({ written: true });
    expect(sent.get(portOf(standbyUrl)) ?? 0).toBe(before);
    const err = await openPostgresStore(url, { readReplicas: [`${standbyUrl}?schema=other`] }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('USAGE');
  });
});
