/**
 * Live watch (`GET /v1/watch`, `stateflow watch`, MCP `resources/subscribe`) against spawned
 * servers: a reconnect with `Last-Event-ID` resumes exactly after the last event under
 * concurrent writes; with API keys a user's watch never carries another user's streams; the
 * stdio client turns changes of its owners into `notifications/resources/updated`.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, removeDir, tempDir } from '../cli/helpers.js';
import { closeAll, discovery, spawnServe, stdioAgent, stopServer, type ServeProcess } from './processes.js';

interface SseEvent {
  event: string | undefined;
  id: string | undefined;
  data: string;
}

let root: string | undefined;
let servers: ServeProcess[] = [];
let clients: Client[] = [];

afterEach(async () => {
  await closeAll(clients);
  clients = [];
  await Promise.all(servers.map((server) => server.stop()));
  servers = [];
  if (root !== undefined) {
    await stopServer(path.join(root, 'store'));
    await removeDir(root);
    root = undefined;
  }
});

/**
 * Read the watch stream until `until` says stop (or `ms` pass), then disconnect. Also returns
 * the raw text received, comments (heartbeats) included.
 */
async function readWatch(url: string, headers: Record<string, string>, until: (events: SseEvent[]) => boolean, ms = 30_000): Promise<{ events: SseEvent[]; raw: string }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const events: SseEvent[] = [];
  let raw = '';
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event, id: event.id, data: event.data }) });
  try {
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    expect(response.status, await (response.ok ? Promise.resolve('') : response.text())).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    while (!until(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += value;
      parser.feed(value);
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { events, raw };
}

const seqs = (events: SseEvent[]): number[] => events.filter((e) => e.event === 'transition').map((e) => Number(e.id));

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

describe('GET /v1/watch', () => {
  it('a client that disconnects at seq N and reconnects with Last-Event-ID: N gets exactly N+1… under concurrent writes', async () => {
    root = await tempDir('watch');
    const server = await spawnServe(path.join(root, 'store'), ['--require-token']);
    servers.push(server);
    const { token } = await discovery(path.join(root, 'store'));
    const auth = { 'x-stateflow-token': token };
    const WRITERS = 4;
    const EACH = 60;
    const writing = Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < EACH; i++) {
          await post(`${server.url}/v1/store/publish`, { changes: { [`cwd:/w${w}`]: { lazy: { i } } } }, auth);
        }
      }),
    );
    const first = await readWatch(`${server.url}/v1/watch?from=0`, auth, (events) => seqs(events).length >= 40);
    const firstSeqs = seqs(first.events);
    expect(firstSeqs).toEqual(firstSeqs.map((_, i) => i + 1));
    const n = firstSeqs[firstSeqs.length - 1] as number;
    expect(first.events[0]).toMatchObject({ event: 'ready', id: '0' });
    // Last-Event-ID wins over ?from.
    const total = WRITERS * EACH;
    const second = await readWatch(`${server.url}/v1/watch?from=0`, { ...auth, 'last-event-id': String(n) }, (events) => seqs(events).at(-1) === total);
    await writing;
    expect(seqs(second.events)).toEqual(Array.from({ length: total - n }, (_, i) => n + 1 + i));
    const transition = JSON.parse(second.events.find((e) => e.event === 'transition')?.data ?? '{}') as Record<string, unknown>;
    // The server stamps who wrote it (server README "Who wrote it").
    expect(Object.keys(transition).sort()).toEqual(['changes', 'hash', 'meta', 'prevHash', 'seq', 'time']);
    expect(transition['meta']).toMatchObject({ writer: { surface: 'http' } });
  });

  it('sends a heartbeat comment while idle, and refuses a malformed Last-Event-ID', async () => {
    root = await tempDir('watch');
    const server = await spawnServe(path.join(root, 'store'), ['--heartbeat', '200']);
    servers.push(server);
    const watched = await readWatch(`${server.url}/v1/watch`, {}, () => false, 2_500);
    expect(watched.raw.match(/^:/gm)?.length ?? 0).toBeGreaterThanOrEqual(3);
    const bad = await fetch(`${server.url}/v1/watch`, { headers: { 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('INPUT_INVALID');
  });

  it("with API keys, user B's watch never carries user A's session streams", async () => {
    root = await tempDir('watch-keys');
    const keys = path.join(root, 'keys.json');
    await writeFile(keys, JSON.stringify({ 'k-alice': 'alice', 'k-bob': 'bob' }));
    const server = await spawnServe(path.join(root, 'store'), ['--keys', keys, '--ladders', path.join(REPO_ROOT, 'packages/cli/examples/ladders')]);
    servers.push(server);
    const alice = { authorization: 'Bearer k-alice' };
    const bob = { authorization: 'Bearer k-bob' };
    const aliceSession = String((await post(`${server.url}/v1/demo/notes/sessions`, { name: 'a' }, alice))['id']);
    const bobSession = String((await post(`${server.url}/v1/demo/notes/sessions`, { name: 'b' }, bob))['id']);
    for (let i = 0; i < 5; i++) {
      await post(`${server.url}/v1/state/patch`, { selection: { session: aliceSession, mode: 'active' }, patch: { lazy: { secret: `alice-${i}` } } }, alice);
      await post(`${server.url}/v1/state/patch`, { selection: { session: bobSession, mode: 'active' }, patch: { lazy: { note: `bob-${i}` } } }, bob);
    }
    const lastSeq = Number((await (await fetch(`${server.url}/v1/server`, { headers: bob })).json() as { lastSeq: number }).lastSeq);
    const watched = await readWatch(`${server.url}/v1/watch?from=0`, bob, (events) => (seqs(events).at(-1) ?? 0) >= lastSeq - 1, 5_000);
    const streams = watched.events.filter((e) => e.event === 'transition').flatMap((e) => (JSON.parse(e.data) as { changes: { stream: string }[] }).changes.map((c) => c.stream));
    expect(streams.length).toBeGreaterThanOrEqual(6);
    for (const stream of streams) expect(stream.endsWith(bobSession)).toBe(true);
    expect(watched.raw).not.toContain(aliceSession);
    expect(watched.raw).not.toContain('alice-');
    // The store API agrees: A's streams do not exist for B.
    const listing = (await (await fetch(`${server.url}/v1/store/streams`, { headers: bob })).json()) as { streams: { stream: string }[] };
    expect(listing.streams.map((s) => s.stream).every((s) => s.endsWith(bobSession))).toBe(true);
    const foreign = await fetch(`${server.url}/v1/store/state?stream=${encodeURIComponent(`session:${aliceSession}`)}`, { headers: bob });
    expect(foreign.status).toBe(404);
    const watchForeign = await fetch(`${server.url}/v1/watch?stream=${encodeURIComponent(`session:${aliceSession}`)}`, { headers: bob });
    expect(watchForeign.status).toBe(404);
  });
});

describe('stateflow watch and MCP resources/subscribe', () => {
  it('stateflow watch --from 2 --stream S prints one JSON line per transition from seq 2 on (inclusive, as log --from), in seq order', async () => {
    root = await tempDir('watch-cli');
    const dir = path.join(root, 'store');
    const agent = await stdioAgent(dir, ['--cwd', '/p']);
    clients.push(agent);
    for (let i = 0; i < 3; i++) await agent.callTool({ name: 'patch_state', arguments: { patch: { lazy: { i } } } });
    const child = spawn(process.execPath, [BIN, '--dir', dir, 'watch', '--from', '2', '--stream', 'cwd:/p']);
    let out = '';
    child.stdout.setEncoding('utf8');
    const lines = new Promise<string[]>((resolve) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const done = out.split('\n').filter((l) => l !== '');
        if (done.length >= 3) resolve(done);
      });
    });
    await agent.callTool({ name: 'patch_state', arguments: { patch: { lazy: { i: 'live' } } } });
    const printed = (await lines).map((line) => JSON.parse(line) as { seq: number; changes: { stream: string; rev: number }[] });
    child.kill('SIGINT');
    expect(printed.map((t) => t.seq)).toEqual([2, 3, 4]);
    expect(printed.map((t) => t.changes[0]?.rev)).toEqual([2, 3, 4]);
  });

  it('stateflow stop ends a running stateflow watch (exit 0) instead of the watch starting a new server', async () => {
    root = await tempDir('watch-stop');
    const dir = path.join(root, 'store');
    const agent = await stdioAgent(dir, ['--cwd', '/p']);
    clients.push(agent);
    await agent.callTool({ name: 'patch_state', arguments: { patch: { lazy: { i: 1 } } } });
    const first = await discovery(dir);
    const child = spawn(process.execPath, [BIN, '--dir', dir, 'watch', '--from', '0']);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve();
      });
    });
    await closeAll(clients);
    clients = [];
    await stopServer(dir);
    expect(await exited).toBe(0);
    expect(err).toContain('the server was stopped; watch ended');
    expect(JSON.parse(out.split('\n')[0] ?? '')).toMatchObject({ seq: 1 });
    // No server came back for the directory.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await expect(discovery(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => process.kill(first.pid, 0)).toThrow();
  });

  it('a stdio client subscribed to the baseline gets notifications/resources/updated when a selected owner changes', async () => {
    root = await tempDir('subscribe');
    const dir = path.join(root, 'store');
    const watcher = await stdioAgent(dir, ['--cwd', '/p']);
    const writer = await stdioAgent(dir, ['--cwd', '/p', '--global']);
    clients.push(watcher, writer);
    const updates: string[] = [];
    watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    await watcher.subscribeResource({ uri: 'stateflow://baseline' });
    // A change of an owner the watcher did not select does not notify it.
    await writer.callTool({ name: 'patch_state', arguments: { patch: { global: { tactics: { g: 1 } } } } });
    await writer.callTool({ name: 'patch_state', arguments: { patch: { cwd: { tactics: { next: 'ship' } } } } });
    for (let i = 0; i < 100 && updates.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(updates).toEqual(['stateflow://baseline']);
    const baseline = await watcher.readResource({ uri: 'stateflow://baseline' });
    expect(JSON.parse((baseline.contents[0] as { text: string }).text)).toMatchObject({ state: { tactics: { next: 'ship' } } });
  });
});
