/**
 * The first hour of a new user, through the BUILT bin and the checkout's own `npm start`: the
 * first error a second user of a machine meets (`serve` on a port in use) says which process
 * holds it and how to pick another port, and `npm start` ends cleanly, its whole process tree
 * gone, when `stateflow stop` stops the server it runs.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, removeDir, REPO_ROOT, stateflow, tempDir } from './helpers.js';

let root: string;
let blocker: Server;
let busyPort: number;

beforeAll(async () => {
  root = await tempDir();
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => blocker.close(resolve));
  await removeDir(root);
});

describe('stateflow serve on a port in use', () => {
  it('is USAGE naming the port, the process holding it (this test) and --port / --port 0', async () => {
    const dir = path.join(root, 'busy');
    const error = jsonError(await stateflow(['--dir', dir, '--json', 'serve', '--port', String(busyPort)]), 2);
    expect(error.code).toBe('USAGE');
    expect(error.details).toEqual({ at: `127.0.0.1:${busyPort}`, reason: 'port-in-use' });
    if (process.platform === 'linux') expect(error.message).toContain(`in use by pid ${process.pid} (`);
    expect(error.message).toContain('--port 0');
    // The store it opened first is closed again: a server can start on it right away.
    expect((await stateflow(['--dir', dir, 'stop'])).stdout).toBe(`no stateflow server serves ${dir}\n`);
  });
});

describe('npm start', () => {
  it('runs the server as its direct child and ends with exit 0, leaving no process, after stateflow stop', async () => {
    const dir = path.join(root, 'npm-start');
    // Its own process group, so that whatever it started can be looked for after it ended.
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0'], { cwd: REPO_ROOT, env: { ...process.env, STATEFLOW_DIR: dir }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('stop with Ctrl-C\n')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${err}`)));
    });
    const pid = Number(/^pid (\d+);/m.exec(out)?.[1]);
    // `exec` in the start script: the server is npm's own child, no shell in between.
    if (process.platform === 'linux') expect(Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1])).toBe(child.pid);
    expect((await stateflow(['--dir', dir, 'stop'])).code).toBe(0);
    expect(await exited).toBe(0);
    // Whatever npm started ends with it; a process of the group may take a moment to exit after npm did.
    const alive = (): boolean => {
      try {
        process.kill(-(child.pid as number), 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(() => process.kill(-(child.pid as number), 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});
