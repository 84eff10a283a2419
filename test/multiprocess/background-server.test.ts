/**
 * The background server that `stateflow mcp` starts for a store directory: two starters at the
 * same moment end with one server, a stale discovery file is detected and replaced, the server
 * stops by itself after its idle timeout and on `stateflow stop`, and a hand-started `serve` on
 * a directory it holds says which process holds it.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, removeDir, runProcess, stateflow, tempDir } from '../cli/helpers.js';
import { closeAll, discovery, stdioAgent, stopServer } from './processes.js';

let root: string | undefined;
let clients: Client[] = [];

afterEach(async () => {
  await closeAll(clients);
  clients = [];
  if (root !== undefined) {
    await stopServer(path.join(root, 'store'));
    await removeDir(root);
    root = undefined;
  }
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(condition: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

const patch = (client: Client, value: number) => client.callTool({ name: 'patch_state', arguments: { patch: { lazy: { value } } } });

describe('background servers of stateflow mcp', () => {
  it('two stateflow mcp starting at the same moment end up with one server', async () => {
    root = await tempDir('bg');
    const dir = path.join(root, 'store');
    const [a, b] = await Promise.all([stdioAgent(dir, ['--cwd', '/p'], 'a'), stdioAgent(dir, ['--cwd', '/p'], 'b')]);
    clients.push(a, b);
    // Both first calls at once: each proxy finds no server and starts one.
    const results = await Promise.all([patch(a, 1), patch(b, 2)]);
    expect(results.map((r) => r.isError)).toEqual([undefined, undefined]);
    const server = await discovery(dir);
    const log = await readFile(path.join(dir, 'stateflow-server.log'), 'utf8');
    expect(log.match(/stateflow serving on/g)).toHaveLength(1);
    // Its banner's command reads the global owner (its working directory is the store, nobody's project) and works.
    const tryLine = log.split('\n').find((line) => line.startsWith('try: ')) ?? '';
    expect(tryLine).toContain('"selection":{"global":true,"mode":"active"},"path":"global"');
    const tried = await runProcess('bash', ['-c', tryLine.slice('try: '.length)]);
    expect(tried.code).toBe(0);
    expect(JSON.parse(tried.stdout)).not.toHaveProperty('error');
    // Later calls of both go to that one server.
    await Promise.all([patch(a, 3), patch(b, 4)]);
    expect((await discovery(dir)).pid).toBe(server.pid);
    const logged = await stateflow(['--dir', dir, '--json', 'log']);
    expect(logged.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('a stale discovery file (dead pid) is detected and replaced', async () => {
    root = await tempDir('bg');
    const dir = path.join(root, 'store');
    // A store, and a discovery file left by a server that died without cleaning up.
    expect((await stateflow(['--dir', dir, '--cwd', '/p', 'patch', '{"lazy": {"v": 0}}'])).code).toBe(0);
    const dead = await runProcess(process.execPath, ['-e', 'console.log(process.pid)']);
    const stalePid = Number(dead.stdout.trim());
    await writeFile(path.join(dir, 'stateflow-server.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: stalePid, token: 'x'.repeat(64) }), { mode: 0o600 });
    // The CLI ignores it and opens the store itself.
    expect((await stateflow(['--dir', dir, 'show', '1'])).code).toBe(0);
    const agent = await stdioAgent(dir, ['--cwd', '/p']);
    clients.push(agent);
    expect((await patch(agent, 1)).isError).not.toBe(true);
    const replaced = await discovery(dir);
    expect(replaced.pid).not.toBe(stalePid);
    expect(alive(replaced.pid)).toBe(true);
    expect((await stat(path.join(dir, 'stateflow-server.json'))).mode & 0o777).toBe(0o600);
  });

  it('stops by itself after its idle timeout, removing its discovery file; the next call starts a new one', async () => {
    root = await tempDir('bg');
    const dir = path.join(root, 'store');
    const client = new (await import('@modelcontextprotocol/sdk/client/index.js')).Client({ name: 'idle', version: '0' });
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, '--dir', dir, '--cwd', '/p', 'mcp', '--idle-timeout', '1500'], stderr: 'ignore' }));
    clients.push(client);
    expect((await patch(client, 1)).isError).not.toBe(true);
    const first = await discovery(dir);
    expect(await waitFor(() => !alive(first.pid), 15_000)).toBe(true);
    await expect(readFile(path.join(dir, 'stateflow-server.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(path.join(dir, 'stateflow-server.log'), 'utf8')).toContain(`pid ${first.pid}; stops by itself after 1500 ms idle`);
    // The same stdio client's next call starts a new server and sees the earlier write.
    const read = await client.callTool({ name: 'read_state', arguments: { path: 'lazy.value' } });
    expect(read.structuredContent).toEqual({ value: 1 });
    expect((await discovery(dir)).pid).not.toBe(first.pid);
  });

  it('serve on a held directory names the holder; stateflow stop stops it; stop with none running exits 0', async () => {
    root = await tempDir('bg');
    const dir = path.join(root, 'store');
    const agent = await stdioAgent(dir, ['--cwd', '/p']);
    clients.push(agent);
    expect((await patch(agent, 1)).isError).not.toBe(true);
    const server = await discovery(dir);
    const second = await stateflow(['--dir', dir, 'serve', '--port', '0']);
    expect(second.code).toBe(4);
    expect(second.stderr).toContain(`is in use by the stateflow server pid ${server.pid} on ${server.url}`);
    expect(second.stderr.split('stateflow stop').length, 'the holder and how to stop it, said once').toBe(2);
    expect(second.stderr).toContain('[STORE_LOCKED]');
    const stopped = await stateflow(['--dir', dir, '--json', 'stop']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual({ stopped: true, dir, pid: server.pid, url: server.url });
    expect(alive(server.pid)).toBe(false);
    const again = await stateflow(['--dir', dir, 'stop']);
    expect(again).toMatchObject({ code: 0, stdout: `no stateflow server serves ${dir}\n` });
    // With no server, the CLI opens the store itself again.
    expect((await stateflow(['--dir', dir, 'show', '1'])).code).toBe(0);
  });
});
