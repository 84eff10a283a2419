/**
 * Crash safety: a child process publishes in a loop — fsync, and buffered (acknowledged once
 * LevelDB appended the batch to its log, unsynced: in the OS, so a process crash cannot lose
 * it) — and is SIGKILLed at random moments. After each
 * kill the store must reopen, audit clean, and hold every acknowledged transition whole.
 * Trials: STATEFLOW_CRASH_TRIALS (default 20) per durability.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { openStore } from './open-store.js';
import type { Durability } from '@stateflow/store';
import { removeDir, tempDir } from '@stateflow/test-kit';

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.join(here, 'test-support', 'crash-child.mjs');
const mixedChild = path.join(here, 'test-support', 'mixed-child.mjs');
const built = path.resolve(here, '..', 'dist', 'index.js');
const TRIALS = Number(process.env.STATEFLOW_CRASH_TRIALS ?? 20);

/** Run the child until it has acknowledged `acks` transitions (plus a random delay), then SIGKILL it. */
function runAndKill(dir: string, tag: string, acks: number, delayMs: number, durability: Durability = 'fsync'): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const acked = new Map<string, number>();
    const proc = spawn(process.execPath, [child, dir, tag, durability], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buffer = '';
    let stderr = '';
    let killing = false;
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d: string) => (stderr += d));
    proc.stdout.on('data', (d: string) => {
      buffer += d;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const m = /^ack (\d+) (\S+)$/.exec(line);
        if (m) acked.set(m[2] as string, Number(m[1]));
        if (!killing && (acked.size >= acks || (acks === 0 && line === 'ready'))) {
          killing = true;
          setTimeout(() => proc.kill('SIGKILL'), delayMs);
        }
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited with ${String(code)}: ${stderr}`));
      else resolve(acked);
    });
  });
}

describe('crash safety (SIGKILL during publishes)', () => {
  let dir: string;
  beforeAll(async () => {
    if (!existsSync(built)) throw new Error(`${built} is missing: build first (npx tsc -b packages/store)`);
    dir = await tempDir('crash');
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it('refuses a directory held by another process with STORE_LOCKED naming it and the holder', async () => {
    const lockedDir = await tempDir('locked');
    const proc = spawn(process.execPath, [child, lockedDir, 'lock'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (d: Buffer) => (d.toString().includes('ready') ? resolve() : undefined));
        proc.on('exit', () => reject(new Error('child exited early')));
      });
      const err = await openStore(lockedDir).then(
        () => null,
        (e: unknown) => e,
      );
      // The holder's pid comes from the kernel's lock table (Linux /proc/locks).
      expect(isStateflowError(err, 'STORE_LOCKED') && err.details).toEqual({ dir: lockedDir, pid: proc.pid });
      // The message says what to do when the holder is a stateflow server.
      expect((err as Error).message).toContain(`process ${proc.pid}. If that is a stateflow server`);
      expect((err as Error).message).toContain(`"stateflow stop --dir ${lockedDir}"`);
    } finally {
      proc.kill('SIGKILL');
      await new Promise((resolve) => proc.once('exit', resolve));
      await removeDir(lockedDir);
    }
  });

  it.each(['same', 'other'])('buffered, fsync, buffered publishes (%s stream), then SIGKILL: every one reopens whole', async (variant) => {
    const storeDir = path.join(dir, `mixed-${variant}`);
    const run = spawnSync(process.execPath, [mixedChild, storeDir, variant], { encoding: 'utf8' });
    expect({ signal: run.signal, stdout: run.stdout }).toEqual({ signal: 'SIGKILL', stdout: 'ack 1\nack 2\nack 3\n' });
    const store = await openStore(storeDir);
    try {
      expect([(await store.transition(1)).id, (await store.transition(2)).id, (await store.transition(3)).id]).toEqual(['a', 'b', 'c']);
      expect(await store.state(variant === 'same' ? 's' : 'b')).toEqual({ v: variant === 'same' ? 3 : 2 });
      expect((await store.audit()).problems).toEqual([]);
      expect((await store.publish({ changes: { z: { v: 4 } } })).transition?.seq).toBe(4);
    } finally {
      await store.close();
    }
  });

  it.each<Durability>(['fsync', 'buffered'])(`keeps every acknowledged transition whole across ${TRIALS} kills (%s)`, async (durability) => {
    const acknowledged = new Map<string, number>();
    const storeDir = path.join(dir, durability);
    for (let trial = 0; trial < TRIALS; trial++) {
      const acks = Math.floor(Math.random() * 12);
      const delay = Math.floor(Math.random() * 15);
      for (const [id, seq] of await runAndKill(storeDir, `t${trial}`, acks, delay, durability)) acknowledged.set(id, seq);
      const store = await openStore(storeDir, { checkpointInterval: 4 });
      try {
        const report = await store.audit();
        expect(report.problems).toEqual([]);
        for (const [id, seq] of acknowledged) {
          expect(store.lastSeq()).toBeGreaterThanOrEqual(seq);
          const t = await store.transition(seq);
          expect(t.id).toBe(id);
        }
        // Every stored transition is whole: its revisions are the heads' history.
        for (const s of await store.streams()) expect(await store.stateAt(s.stream, s.rev)).toEqual(await store.state(s.stream));
      } finally {
        await store.close();
      }
    }
    expect(acknowledged.size).toBeGreaterThan(0);
  }, 180_000);
});
