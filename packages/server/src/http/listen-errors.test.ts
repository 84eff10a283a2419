/**
 * A server that cannot start says why and what to do: a port in use is USAGE naming the port,
 * the process that holds it (found through `/proc` on Linux) and `--port` / `--port 0`; a store
 * directory another server holds is STORE_LOCKED naming that server once (its text used to
 * repeat the store's own guess and then the server's answer).
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore } from '@stateflow/store';
import { rejectionOf, removeDir, tempDir } from '@stateflow/test-kit';
import { findPortHolder } from './port-holder.js';
import { startServer } from './start-server.js';

const onLinux = process.platform === 'linux';
let blocker: Server;
let port: number;

beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  port = (blocker.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => blocker.close(resolve));
});

describe('a port in use', () => {
  it.skipIf(!onLinux)('is found in /proc: this process, its uid and command line', async () => {
    const holder = await findPortHolder(port);
    expect(holder).toMatchObject({ uid: process.getuid?.(), pid: process.pid });
    expect(holder?.command).toContain('node');
  });

  it('fails startServer with USAGE { at, reason: port-in-use }, naming the holder and how to pick another port; the store stays usable', async () => {
    const store = await openMemoryStore();
    try {
      const err = await rejectionOf(startServer({ store, port, sweepIntervalMs: 0, onWarning: () => undefined }));
      expect(err.code).toBe('USAGE');
      expect(err.details).toEqual({ at: `127.0.0.1:${port}`, reason: 'port-in-use' });
      expect(err.message).toContain('--port 0');
      if (onLinux) expect(err.message).toContain(`in use by pid ${process.pid} (`);
      expect(store.lastSeq()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('is null for a port nobody listens on', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const unused = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    expect(await findPortHolder(unused)).toBeNull();
  });
});

describe('a store directory another server holds', () => {
  it('is STORE_LOCKED { dir, pid } naming that server and "stateflow stop" once', async () => {
    const dir = await tempDir('locked');
    const first = await startServer({ dir, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
    try {
      const err = await rejectionOf(startServer({ dir, port: 0, sweepIntervalMs: 0, onWarning: () => undefined }));
      expect(err.code).toBe('STORE_LOCKED');
      expect(err.details).toEqual({ dir, pid: process.pid });
      expect(err.message).toContain(first.url);
      expect(err.message.split('stateflow stop').length, err.message).toBe(2);
    } finally {
      await first.close();
      await removeDir(dir);
    }
  });
});
