/**
 * Retention over HTTP (server README "Store API", store README "Retention"): the owner sets and
 * lists policies, previews a run that writes nothing and runs it; an API-key user gets 403 and
 * changes nothing. The schedule (`retainIntervalMs`, off by default) runs the same as of the
 * server's clock, a simulated one here, so the policy's age is never waited for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { fakeClock } from '@stateflow/test-kit';
import { http } from './fixtures.js';

const DAY = 86_400_000;
let server: ServerHandle | undefined;
let store: Store | undefined;

afterEach(async () => {
  await server?.close();
  await store?.close();
  server = undefined;
});

async function served(options: { retainIntervalMs?: number } = {}): Promise<{ server: ServerHandle; owner: (path: string, body?: unknown) => Promise<{ status: number; body: any }>; time: ReturnType<typeof fakeClock> }> {
  const time = fakeClock();
  store = await openMemoryStore({ clock: time.clock, checkpointInterval: 4 });
  for (let d = 1; d <= 10; d++) {
    await store.publish({ changes: { 'langgraph:old': { d }, 'cwd:/r': { d } } });
    time.advance(DAY);
  }
  server = await startServer({ store, port: 0, clock: time.clock, keys: { 'key-bob': 'bob' }, sweepIntervalMs: 0, onWarning: () => undefined, ...options });
  const s = server;
  const owner = (path: string, body?: unknown) => http(`${s.url}${path}`, { headers: { 'x-stateflow-token': s.token }, ...(body === undefined ? {} : { body }) });
  return { server: s, owner, time };
}

describe('retention over HTTP', () => {
  it('the owner sets, lists, previews and runs; a key user is refused and changes nothing', async () => {
    const { server: s, owner } = await served();
    expect((await http(`${s.url}/v1/store/retention/set`, { key: 'key-bob', body: { pattern: 'langgraph:*', policy: { maxRevisions: 1 } } })).status).toBe(403);
    expect((await http(`${s.url}/v1/store/retain`, { key: 'key-bob', body: {} })).status).toBe(403);
    const set = await owner('/v1/store/retention/set', { pattern: 'langgraph:*', policy: { maxAgeMs: 3 * DAY } });
    expect([set.status, set.body.status]).toEqual([200, 'accepted']);
    const bad = await owner('/v1/store/retention/set', { pattern: 'a**', policy: { maxRevisions: 2 } });
    expect([bad.status, bad.body.error.code, bad.body.error.details]).toEqual([400, 'RETENTION_INVALID', { pattern: 'a**', reason: 'pattern' }]);
    expect((await owner('/v1/store/retention')).body).toEqual({ policies: [{ pattern: 'langgraph:*', maxAgeMs: 3 * DAY }] });
    const seq = store!.lastSeq();
    const dry = await owner('/v1/store/retain', { dryRun: true });
    expect(dry.body.streams).toEqual([{ stream: 'langgraph:old', family: 'langgraph:*', rev: 10, fromOrigin: 0, origin: 7, revisions: 7, bytes: 7 * 7, expired: false }]);
    expect(store!.lastSeq()).toBe(seq);
    expect((await store!.head('langgraph:old')).origin).toBe(0);
    const run = await owner('/v1/store/retain', {});
    expect({ ...run.body, dryRun: true }).toEqual(dry.body);
    expect((await store!.head('langgraph:old')).origin).toBe(7);
    expect((await owner('/v1/store/retention/remove', { pattern: 'langgraph:*' })).body.status).toBe('accepted');
    expect((await owner('/v1/store/retention')).body).toEqual({ policies: [] });
  });

  it('GET /metrics shows the bytes of each family as of the last run, dry or not', async () => {
    const { server: s, owner } = await served();
    const familyBytes = async (): Promise<Record<string, number>> => {
      const text = await (await fetch(`${s.url}/metrics`, { headers: { 'x-stateflow-token': s.token } })).text();
      return Object.fromEntries([...text.matchAll(/^stateflow_stream_family_bytes\{family="([^"]*)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    };
    await owner('/v1/store/retention/set', { pattern: 'langgraph:*', policy: { maxAgeMs: 3 * DAY } });
    await owner('/v1/store/retention/set', { pattern: 'cwd:*', policy: { maxRevisions: 100 } });
    expect(await familyBytes()).toEqual({});
    // Ten patches {"d":1} … {"d":10}: 9 × 7 + 8 bytes; the run removes revisions 1…7 of langgraph:old.
    await owner('/v1/store/retain', { dryRun: true });
    expect(await familyBytes()).toEqual({ 'langgraph:*': 71, 'cwd:*': 71 });
    await owner('/v1/store/retain', {});
    expect(await familyBytes()).toEqual({ 'langgraph:*': 22, 'cwd:*': 71 });
  });

  it('a scheduled run applies the policies as of the server clock', async () => {
    const { owner, time } = await served({ retainIntervalMs: 10 });
    await owner('/v1/store/retention/set', { pattern: 'langgraph:*', policy: { idleMs: 30 * DAY } });
    time.advance(30 * DAY);
    for (let i = 0; i < 200 && (await store!.head('langgraph:old')).origin === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await store!.head('langgraph:old')).toMatchObject({ rev: 11, origin: 11 });
    expect(await store!.state('langgraph:old')).toEqual({});
    expect((await store!.head('cwd:/r')).origin).toBe(0);
  });
});
