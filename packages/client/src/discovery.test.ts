/**
 * The discovery file and server lookup: mode 0600, atomic replace, removal only by its own
 * process, stale files (dead pid, refused port) ignored, and a process on the port that cannot
 * prove it holds the token sent nothing but a nonce.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DISCOVERY_FILE, newServerToken, readDiscovery, removeDiscovery, writeDiscovery } from './discovery.js';
import type { ServerDiscovery } from './discovery.js';
import { findServer } from './find-server.js';
import { serverProof } from './server-proof.js';
import type { StateflowError } from '@stateflow/core';
import { removeDir, tempDir } from '@stateflow/test-kit';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('discovery');
});
afterEach(async () => {
  await removeDir(dir);
});

const info = (pid: number, url = 'http://127.0.0.1:9'): ServerDiscovery => ({
  url,
  pid,
  token: newServerToken(),
  requireToken: true,
  background: false,
  idleTimeoutMs: null,
  startedAt: new Date().toISOString(),
});

/** A pid that no process has any more. */
const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe('discovery file', () => {
  it('is written with mode 0600 and read back; a replacement is atomic', async () => {
    const first = info(process.pid);
    await writeDiscovery(dir, first);
    expect((await stat(path.join(dir, DISCOVERY_FILE))).mode & 0o777).toBe(0o600);
    expect(await readDiscovery(dir)).toEqual(first);
    const second = info(process.pid, 'http://127.0.0.1:10');
    await writeDiscovery(dir, second);
    expect(await readDiscovery(dir)).toEqual(second);
    expect(first.token).toMatch(/^[0-9a-f]{64}$/);
    expect(first.token).not.toBe(second.token);
  });

  it('is treated as absent when missing, not JSON or not a discovery record', async () => {
    expect(await readDiscovery(dir)).toBeNull();
    await writeFile(path.join(dir, DISCOVERY_FILE), '{"url": "http://x", "pid": "7"');
    expect(await readDiscovery(dir)).toBeNull();
    await writeFile(path.join(dir, DISCOVERY_FILE), '{"url": "http://x", "pid": "7", "token": "t"}');
    expect(await readDiscovery(dir)).toBeNull();
  });

  it('is removed only by the process it names', async () => {
    await writeDiscovery(dir, info(process.pid));
    await removeDiscovery(dir, process.pid + 1);
    expect(await readDiscovery(dir)).not.toBeNull();
    await removeDiscovery(dir, process.pid);
    expect(await readDiscovery(dir)).toBeNull();
  });
});

describe('findServer', () => {
  it('removes a file whose process is dead', async () => {
    await writeDiscovery(dir, info(deadPid()));
    expect(await findServer(dir)).toBeNull();
    await expect(readFile(path.join(dir, DISCOVERY_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('ignores (and keeps) a file whose live process refuses connections', async () => {
    await writeDiscovery(dir, info(process.pid, 'http://127.0.0.1:9'));
    expect(await findServer(dir)).toBeNull();
    expect(await readDiscovery(dir)).not.toBeNull();
  });

  it('sends an impostor on the port (answering with the file\'s pid) neither the token nor anything but a nonce, and says what it found', async () => {
    const received: Array<{ url: string; headers: string }> = [];
    const impostor = createServer((req, res) => {
      received.push({ url: req.url ?? '', headers: JSON.stringify(req.headers) });
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ version: '0', lastSeq: 0, pid: process.pid, proof: 'f'.repeat(64) }));
    });
    const url = await listen(impostor);
    try {
      const written = info(process.pid, url);
      await writeDiscovery(dir, written);
      const ignored: StateflowError[] = [];
      expect(await findServer(dir, { onIgnored: (error) => ignored.push(error) })).toBeNull();
      expect(received.map((r) => r.url.split('?')[0])).toEqual(['/v1/server/proof']);
      for (const request of received) {
        expect(request.url).not.toContain(written.token);
        expect(request.headers).not.toContain(written.token);
      }
      expect(ignored.map((e) => [e.code, e.details])).toEqual([['STORE_UNAVAILABLE', { url, outcome: 'not-sent', reason: 'server-unverified' }]]);
      expect(ignored[0]?.message).toContain('wrong HMAC');
      expect(await readDiscovery(dir)).not.toBeNull();
    } finally {
      await close(impostor);
    }
  });

  it('returns a file whose process proves it holds the token and then answers GET /v1/server with its pid', async () => {
    const received: Array<{ path: string; token: string | undefined }> = [];
    let written: ServerDiscovery | undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '', 'http://localhost');
      received.push({ path: url.pathname, token: req.headers['x-stateflow-token'] as string | undefined });
      const nonce = url.searchParams.get('nonce') ?? '';
      const token = written?.token ?? '';
      const body = url.pathname === '/v1/server/proof' ? { proof: serverProof(token, nonce), pidProof: serverProof(token, nonce, process.pid) } : { version: '0', lastSeq: 3, pid: process.pid };
      res.setHeader('content-type', 'application/json').end(JSON.stringify(body));
    });
    const url = await listen(server);
    try {
      written = info(process.pid, url);
      await writeDiscovery(dir, written);
      expect(await findServer(dir)).toEqual(written);
      expect(received).toEqual([
        { path: '/v1/server/proof', token: undefined },
        { path: '/v1/server', token: written.token },
      ]);
    } finally {
      await close(server);
    }
  });
});

describe('a relay of the proof to another live server of the same token', () => {
  it('is caught by the pid proof before the token is sent anywhere', async () => {
    const token = newServerToken();
    // The live server of this token runs as this process; the file names another live pid.
    const real = createServer((req, res) => {
      const url = new URL(req.url ?? '', 'http://localhost');
      const nonce = url.searchParams.get('nonce') ?? '';
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ proof: serverProof(token, nonce), pidProof: serverProof(token, nonce, process.pid) }));
    });
    const realUrl = await listen(real);
    const received: Array<{ path: string; token: string | undefined }> = [];
    const relay = createServer((req, res) => {
      received.push({ path: new URL(req.url ?? '', 'http://localhost').pathname, token: req.headers['x-stateflow-token'] as string | undefined });
      void fetch(`${realUrl}${req.url ?? ''}`).then(async (answer) => res.setHeader('content-type', 'application/json').end(await answer.text()));
    });
    const relayUrl = await listen(relay);
    try {
      await writeDiscovery(dir, { ...info(process.ppid, relayUrl), token });
      const ignored: StateflowError[] = [];
      expect(await findServer(dir, { onIgnored: (err) => ignored.push(err) })).toBeNull();
      expect(received).toEqual([{ path: '/v1/server/proof', token: undefined }]);
      expect(ignored.map((err) => err.details)).toEqual([{ url: relayUrl, outcome: 'not-sent', reason: 'server-unverified' }]);
    } finally {
      await close(relay);
      await close(real);
    }
  });
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
