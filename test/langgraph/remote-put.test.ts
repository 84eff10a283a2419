/**
 * StateflowSaver over a remote store (`@stateflow/client` against the store's server on
 * loopback, LevelDB on disk): a `put` or `putWrites` is one request — the publish — carrying
 * only what changed (the net patch and the index entry), not the head state; a writer that
 * another client got ahead of catches up and still writes the right state. Counted by a proxy
 * in front of the real server that records every request and the bytes each way.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { openRemoteStore } from '@stateflow/client';
import { StateflowSaver } from '@stateflow/langgraph';
import { startServer } from '@stateflow/server';
import type { Store } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, tempDir } from '@stateflow/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** One request through the proxy. */
interface Seen {
  route: string;
  sent: number;
  received: number;
  body: string;
}

/** A proxy to `target` that records every request (method and path), its body and the bytes each way. */
async function countingProxy(target: string): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const to = new URL(target);
  const read = async (stream: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const forwarded = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        void read(answer).then((reply) => {
          seen.push({ route: `${req.method} ${new URL(req.url ?? '/', target).pathname}`, sent: body.length, received: reply.length, body: body.toString('utf8') });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(reply);
        });
      });
      forwarded.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const meta = (step: number): CheckpointMetadata => ({ source: 'loop', step, parents: {} });
const message = (i: number): { role: string; content: string } => ({ role: 'ai', content: `message ${i}: ${'word '.repeat(40)}` });

/** The checkpoint after `n` steps: `n` messages and the step count. */
function step(n: number): Checkpoint {
  return {
    ...emptyCheckpoint(),
    id: uuid6(0),
    channel_values: { messages: Array.from({ length: n }, (_, i) => message(i)), step: n },
    channel_versions: { messages: n, step: n },
  };
}

describe('StateflowSaver over a remote store', () => {
  let root: string;
  let local: Store;
  let server: Awaited<ReturnType<typeof startServer>>;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let remote: Store;

  beforeEach(async () => {
    root = await tempDir();
    local = await openStore(path.join(root, 'store'));
    server = await startServer({ store: local, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
    proxy = await countingProxy(server.url);
    remote = await openRemoteStore({ url: proxy.url, token: server.token });
    expect(proxy.seen.map((s) => s.route)).toEqual(['GET /v1/server']);
  });

  afterEach(async () => {
    await remote.close();
    await proxy.close();
    await server.close();
    await local.close();
    await removeDir(root);
  });

  it('a put and a putWrites are one request each, the publish, sending only what changed', async () => {
    const saver = new StateflowSaver(remote);
    let config: RunnableConfig = { configurable: { thread_id: 't' } };
    for (let n = 1; n <= 40; n++) {
      config = await saver.put(config, step(n), meta(n), { messages: n, step: n });
      await saver.putWrites(config, [['messages', [message(n)]]], `task-${n}`);
    }
    proxy.seen.length = 0;
    config = await saver.put(config, step(41), meta(41), { messages: 41, step: 41 });
    expect(proxy.seen.map((s) => s.route)).toEqual(['POST /v1/store/publish']);
    const [publish] = proxy.seen as [Seen];
    const head = JSON.stringify(await local.state('langgraph:t'));
    // The head state holds 41 messages of ~230 bytes; the request carries the new one.
    expect(head.length).toBeGreaterThan(10_000);
    expect(publish.sent).toBeLessThan(2_000);
    expect(publish.received).toBeLessThan(3_000);
    const sent = JSON.parse(publish.body) as { changes: Record<string, Record<string, unknown>>; expected: Record<string, number> };
    expect(Object.keys(sent.changes).sort()).toEqual(['langgraph-index:t', 'langgraph:t']);
    const messages = (sent.changes['langgraph:t']?.['channels'] as Record<string, { value: Record<string, unknown> }>)['messages']?.value;
    expect(messages).toEqual({ $len: 41, '40': { role: 'ai', content: message(40).content } });
    expect(sent.expected).toEqual({ 'langgraph:t': 80 });

    proxy.seen.length = 0;
    await saver.putWrites(config, [['messages', [message(41)]]], 'task-41');
    expect(proxy.seen.map((s) => s.route)).toEqual(['POST /v1/store/publish']);
    expect((proxy.seen[0] as Seen).sent).toBeLessThan(1_500);

    // What the remote writer published is what the store holds.
    const read = await new StateflowSaver(local).getTuple(config);
    expect(read?.checkpoint.channel_values['messages']).toEqual(Array.from({ length: 41 }, (_, i) => message(i)));
    expect(read?.pendingWrites).toEqual([['task-41', 'messages', [message(41)]]]);
  });

  it('a writer another client got ahead of catches up and writes on the state that client left', async () => {
    const a = new StateflowSaver(remote);
    const other = await openRemoteStore({ url: server.url, token: server.token });
    try {
      const b = new StateflowSaver(other, { fencing: false });
      const c1 = await a.put({ configurable: { thread_id: 't' } }, step(1), meta(1), { messages: 1, step: 1 });
      await b.putWrites(c1, [['step', 99]], 'task-b');
      proxy.seen.length = 0;
      const c2 = await a.put(c1, step(2), meta(2), { messages: 2, step: 2 });
      // The first publish lost its CAS to b's write; the saver read what b added, and published again.
      const routes = proxy.seen.map((s) => s.route);
      expect(routes.filter((r) => r === 'POST /v1/store/publish')).toHaveLength(2);
      expect(routes.length).toBeGreaterThan(2);
      const fresh = new StateflowSaver(local);
      expect((await fresh.getTuple(c1))?.pendingWrites).toEqual([['task-b', 'step', 99]]);
      expect((await fresh.getTuple(c2))?.checkpoint.channel_values).toEqual({ messages: [message(0), message(1)], step: 2 });
      expect((await local.audit()).problems).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
