/**
 * Disk full under a running HTTP server (store README "Fail closed"): on a 3 MB tmpfs, state
 * patches through `POST /v1/state/patch` answer 200 until one fails (500 STORE_IO, "No space left
 * on device"); while the disk stays full, reads are served and writes answer the failure
 * (`REOPEN_REQUIRED`, the store kept open for reads); the disk grows; the server's next write
 * reopens its store by itself (which checks the files) and answers 200. After the server stops, the store holds exactly the acknowledged
 * patches, audited clean. Needs root for `mount` (skips visibly elsewhere; fails under CI=true).
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '@stateflow/store-leveldb';
import { startServer } from '@stateflow/server';
import { tmpfsForTest } from '@stateflow/test-kit';


const selection = { cwd: '/work/disk-full', mode: 'active' };

describe('a server on a full disk', () => {
  it('answers the failed write with its error, reopens its store on the next write, and loses no acknowledged patch', async (t) => {
    const disk = await tmpfsForTest(3 * 1024 * 1024, { skip: () => t.skip(), onFinished: (fn) => t.onTestFinished(fn) });
    if (disk === null) return;
    const dir = `${disk.dir}/store`;
    const server = await startServer({ dir, port: 0, sweepIntervalMs: 0 });
    const patch = (i: number): Promise<Response> =>
      fetch(`${server.url}/v1/state/patch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ selection, patch: { lazy: { [`k${i}`]: 'x'.repeat(60_000) } } }),
      });
    const readKeys = async (): Promise<{ status: number; keys: string[] }> => {
      const res = await fetch(`${server.url}/v1/state/read`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ selection, path: 'cwd.lazy', projection: 'keys' }),
      });
      return { status: res.status, keys: res.status === 200 ? Object.keys(((await res.json()) as { keys: Record<string, string> }).keys) : [] };
    };
    const acknowledged: number[] = [];
    let failed: { status: number; body: { error: { code: string; message: string } } } | null = null;
    try {
      for (let i = 1; failed === null && i < 1_000; i++) {
        const res = await patch(i);
        if (res.status === 200) acknowledged.push(i);
        else failed = { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
      }
      expect(failed?.status).toBe(500);
      expect(failed?.body.error.code).toBe('STORE_IO');
      expect(failed?.body.error.message).toContain('No space left on device');

      // While the disk stays full, every read is served (from the store that failed, which holds
      // every acknowledged patch), and every write answers the failure without closing it.
      for (let i = 0; i < 40; i++) {
        const read = await readKeys();
        expect(read.status).toBe(200);
        expect(read.keys).toEqual(acknowledged.map((k) => `k${k}`));
        if (i % 8 === 0) {
          const res = await patch(9_000 + i);
          expect(res.status).toBe(503);
          expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'REOPEN_REQUIRED', message: expect.stringContaining('No space left on device') });
        }
      }

      await disk.resize(64 * 1024 * 1024);
      for (let i = 5_001; i <= 5_005; i++) {
        const res = await patch(i);
        expect(res.status, await res.clone().text()).toBe(200);
        acknowledged.push(i);
      }
      expect((await readKeys()).keys).toEqual(acknowledged.map((i) => `k${i}`));
    } finally {
      await server.close();
    }
    const store = await openStore(dir, { createIfMissing: false });
    try {
      const state = await store.state(`cwd:${selection.cwd}`);
      expect(Object.keys(state.lazy as object)).toEqual(acknowledged.map((i) => `k${i}`));
      expect(store.lastSeq()).toBe(acknowledged.length);
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
