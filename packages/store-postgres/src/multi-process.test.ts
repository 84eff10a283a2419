/**
 * Many processes, one PostgreSQL store (README "How it works"): 4 child processes × 250
 * publishes as fast as they can, on overlapping streams with expected revisions read just
 * before (so races happen). Every acknowledged transition is present exactly once with its
 * hash, seqs run 1…N without a gap, each stream's revisions rise by one, every CAS loser got
 * CONFLICT, and the audit is clean. A child killed with SIGKILL while it publishes leaves
 * nothing partial.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { dropPostgresStore, openPostgresStore } from './open-postgres-store.js';

const WRITER = fileURLToPath(new URL('./test-support/writer.mjs', import.meta.url));
const server = await testPostgres();

interface Outcome {
  acks: { seq: number; hash: string; stream: string; rev: number }[];
  conflicts: number;
  errors: string[];
}

/** Run one writer child; resolve with what it printed (all of it, or up to the kill). */
function writer(url: string, count: number, killAfterMs?: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, url, String(count), killAfterMs === undefined ? '' : 'forever'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (killAfterMs !== undefined && out.includes('ready\n') && !child.killed) setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (killAfterMs === undefined && code !== 0) return reject(new Error(`writer exited ${code ?? signal}: ${err}`));
      const outcome: Outcome = { acks: [], conflicts: 0, errors: [] };
      // Only complete lines count: a line cut by the kill was never fully acknowledged.
      for (const line of out.split('\n').slice(0, -1)) {
        const [kind, a, b, c, d] = line.split(' ');
        if (kind === 'ack') outcome.acks.push({ seq: Number(a), hash: b as string, stream: c as string, rev: Number(d) });
        else if (kind === 'conflict') outcome.conflicts++;
        else if (kind === 'error') outcome.errors.push(a as string);
      }
      resolve(outcome);
    });
  });
}

describe.skipIf('unavailable' in server)('PostgreSQL: many processes, one log', () => {
  const url = freshPostgresUrl('multi');
  beforeAll(async () => {
    await (await openPostgresStore(url)).close();
  });
  afterAll(async () => {
    await dropPostgresStore(url);
  });

  it('4 processes × 250 publishes: every acknowledged transition once, gap-free seqs, losers got CONFLICT, audit clean', async () => {
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => writer(url, 250)));
    const acks = outcomes.flatMap((o) => o.acks);
    expect(outcomes.flatMap((o) => o.errors)).toEqual([]);
    expect(acks.length + outcomes.reduce((n, o) => n + o.conflicts, 0)).toBe(1_000);
    expect(outcomes.reduce((n, o) => n + o.conflicts, 0)).toBeGreaterThan(0);

    const store = await openPostgresStore(url);
    try {
      const log = new Map<number, { hash: string; changes: { stream: string; rev: number }[] }>();
      for await (const t of store.transitions()) log.set(t.seq, t);
      expect([...log.keys()]).toEqual(Array.from({ length: acks.length }, (_, i) => i + 1));
      for (const ack of acks) {
        expect(log.get(ack.seq)?.hash).toBe(ack.hash);
        expect(log.get(ack.seq)?.changes).toEqual([expect.objectContaining({ stream: ack.stream, rev: ack.rev })]);
      }
      for (const stream of ['global', 'session:shared', 'cwd:/a', 'cwd:/b']) {
        const revs = acks.filter((a) => a.stream === stream).map((a) => a.rev).sort((x, y) => x - y);
        expect(revs).toEqual(Array.from({ length: revs.length }, (_, i) => i + 1));
      }
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a writer killed with SIGKILL mid-publish leaves nothing partial: every acknowledged transition whole, audit clean, the next write continues', async () => {
    const before = await openPostgresStore(url);
    const start = before.lastSeq();
    await before.close();
    const killed = await Promise.all([writer(url, 0, 300), writer(url, 0, 450), writer(url, 100)]);
    const acks = killed.flatMap((o) => o.acks);
    expect(acks.length).toBeGreaterThan(0);
    const store = await openPostgresStore(url);
    try {
      const seqs: number[] = [];
      const hashes = new Map<number, string>();
      for await (const t of store.transitions({ from: start + 1 })) {
        seqs.push(t.seq);
        hashes.set(t.seq, t.hash);
      }
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => start + i + 1));
      for (const ack of acks) expect(hashes.get(ack.seq)).toBe(ack.hash);
      expect((await store.audit()).problems).toEqual([]);
      const next = await store.publish({ changes: { global: { after: 'kill' } } });
      expect(next.transition?.seq).toBe(store.lastSeq());
      expect(next.transition?.seq).toBe(seqs.length + start + 1);
    } finally {
      await store.close();
    }
  });
});
