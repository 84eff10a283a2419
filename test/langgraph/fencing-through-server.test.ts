/**
 * Write fencing across processes on LevelDB: one process holds the store directory and serves
 * it (`startServer`); two other processes resume the same interrupted thread at once, each
 * with its own StateflowSaver over the remote Store of `@stateflow/client`. Exactly one put per
 * step wins, the other process is refused with CONFLICT, and no checkpoint becomes unreachable.
 *
 * Needs the remote Store client (`@stateflow/client`, the store server's HTTP client); where it
 * is not installed the test is skipped with that reason.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../cli/helpers.js';
import { buildAgent } from './agent-graph.mjs';

type RemoteStoreModule = { openRemoteStore(options: { url: string; token?: string }): Promise<Store> };
type ServerModule = { startServer(options: Record<string, unknown>): Promise<{ url: string; token: string; close(): Promise<void> }> };

const client = (await import('@stateflow/client' as string).catch(() => null)) as RemoteStoreModule | null;
const REASON = '@stateflow/client (the remote Store over the store server) is not installed';
if (client === null) console.warn(`fencing-through-server skipped: ${REASON}`);

const RACER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'resume-racer.mjs');
const THREAD = 'shared-thread';

interface Racer {
  ready: Promise<void>;
  go(): void;
  result: Promise<{ outcome: 'won' | 'refused'; code?: string; details?: Record<string, unknown>; approved?: boolean }>;
}

function startRacer(url: string, token: string, answer: string): Racer {
  const child = spawn(process.execPath, [RACER, url, token, THREAD, answer], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const output: string[] = [];
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  lines.on('line', (line) => (line === 'ready' ? onReady() : output.push(line)));
  const result = new Promise<Racer['result'] extends Promise<infer R> ? R : never>((resolve, reject) =>
    child.on('close', (code) => (code === 0 && output.length === 1 ? resolve(JSON.parse(output[0] as string)) : reject(new Error(`racer exited ${code}: ${stderr}`)))),
  );
  return { ready, go: () => child.stdin.end('go\n'), result };
}

describe.skipIf(client === null)(`two processes resuming one thread through the LevelDB store's server${client === null ? ` [skipped: ${REASON}]` : ''}`, () => {
  let root: string;
  let local: Store;
  let server: Awaited<ReturnType<ServerModule['startServer']>>;
  beforeAll(async () => {
    root = await tempDir();
    local = await openStore(path.join(root, 'store'));
    const { startServer } = (await import('@stateflow/server')) as unknown as ServerModule;
    server = await startServer({ store: local, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await local?.close();
    await removeDir(root);
  });

  it('exactly one put wins, the other process gets CONFLICT, and every checkpoint stays on the head chain', async () => {
    const remote = await (client as RemoteStoreModule).openRemoteStore({ url: server.url, token: server.token });
    const agent = buildAgent(new StateflowSaver(remote));
    const config = { configurable: { thread_id: THREAD } };
    await agent.invoke({ messages: [{ role: 'user', content: 'fencing' }] }, config);
    expect((await agent.getState(config)).next).toEqual(['review']);

    const racers = [startRacer(server.url, server.token, 'yes'), startRacer(server.url, server.token, 'no')];
    await Promise.all(racers.map((r) => r.ready));
    for (const racer of racers) racer.go();
    const results = await Promise.all(racers.map((r) => r.result));
    expect(results.map((r) => r.outcome).sort()).toEqual(['refused', 'won']);
    const refused = results.find((r) => r.outcome === 'refused');
    expect(refused?.code).toBe('CONFLICT');
    const winner = results.find((r) => r.outcome === 'won');

    const history = [];
    for await (const s of agent.getStateHistory(config)) history.push(s);
    const parentOf = new Map(history.map((s) => [s.config.configurable?.['checkpoint_id'], s.parentConfig?.configurable?.['checkpoint_id']]));
    const chain: unknown[] = [];
    for (let id = history[0]?.config.configurable?.['checkpoint_id']; id !== undefined; id = parentOf.get(id)) chain.push(id);
    expect(chain).toEqual(history.map((s) => s.config.configurable?.['checkpoint_id']));
    expect((await agent.getState(config)).values.approved).toBe(winner?.approved);
    // The refused put named the winner's checkpoint after review (or, if the winner was quicker, the one after it).
    const winnerAfterReview = history.filter((s) => (s.metadata?.step ?? 0) >= 3).map((s) => s.config.configurable?.['checkpoint_id']);
    expect(winnerAfterReview).toContain(refused?.details?.['head_checkpoint_id']);
    await remote.close();
    expect(await local.audit()).toMatchObject({ problems: [] });
  });
});
