/**
 * Write fencing across processes: two processes resume the same interrupted thread at once,
 * each with its own StateflowSaver, on the two ways processes share a store:
 *
 * - LevelDB through its server: one process holds the directory and serves it (`startServer`);
 *   the racers (and this test) write through the remote Store of `@stateflow/client`.
 * - PostgreSQL directly: every process, this test's included, opens the store itself.
 *
 * Exactly one put per step wins, the other process is refused with CONFLICT, no checkpoint
 * becomes unreachable from the thread's head, and the audit is clean. Without a PostgreSQL
 * server its case is skipped with the reason (under `CI=true` it fails).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRemoteStore } from '@stateflow/client';
import { StateflowSaver } from '@stateflow/langgraph';
import { startServer } from '@stateflow/server';
import { openStore } from '@stateflow/store-leveldb';
import type { AuditReport, Store } from '@stateflow/store';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../cli/helpers.js';
import { buildAgent } from './agent-graph.mjs';

const RACER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'resume-racer.mjs');
const THREAD = 'shared-thread';

/** A store the racers share: how this test writes it, what the racers are told, how it ends. */
interface SharedStore {
  /** This test's own Store on it. */
  store: Store;
  /** The racer's LOCATION [TOKEN] arguments. */
  racerArgs: string[];
  /** The audit of the whole store, by whoever holds it. */
  audit(): Promise<AuditReport>;
  close(): Promise<void>;
}

interface Location {
  name: string;
  /** Why it cannot run here (already reported), or null. */
  unavailable: string | null;
  open(): Promise<SharedStore>;
}

const postgres = await testPostgres();

const locations: Location[] = [
  {
    name: "LevelDB through the store's server",
    unavailable: null,
    async open() {
      const root = await tempDir();
      const local = await openStore(path.join(root, 'store'));
      const server = await startServer({ store: local, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
      const store = await openRemoteStore({ url: server.url, token: server.token });
      return {
        store,
        racerArgs: [server.url, server.token],
        audit: () => local.audit(),
        async close() {
          await store.close();
          await server.close();
          await local.close();
          await removeDir(root);
        },
      };
    },
  },
  {
    name: 'PostgreSQL opened by each process',
    unavailable: 'unavailable' in postgres ? postgres.unavailable : null,
    async open() {
      const url = freshPostgresUrl('lgfence');
      const store = await openPostgresStore(url, { maxConnections: 2 });
      return {
        store,
        racerArgs: [url],
        audit: () => store.audit(),
        async close() {
          await store.close();
          await dropPostgresStore(url);
        },
      };
    },
  },
];

interface Racer {
  ready: Promise<void>;
  go(): void;
  result: Promise<{ outcome: 'won' | 'refused'; code?: string; details?: Record<string, unknown>; approved?: boolean }>;
}

function startRacer(answer: string, racerArgs: string[]): Racer {
  const child = spawn(process.execPath, [RACER, THREAD, answer, ...racerArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
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

describe.each(locations)('two processes resuming one thread: $name', (location) => {
  let shared: SharedStore | undefined;
  beforeAll(async () => {
    if (location.unavailable === null) shared = await location.open();
  });
  afterAll(async () => {
    await shared?.close();
  });

  it.skipIf(location.unavailable !== null)(
    `exactly one put wins, the other process gets CONFLICT, and every checkpoint stays on the head chain${location.unavailable === null ? '' : ` [skipped: ${location.unavailable}]`}`,
    async () => {
      const { store, racerArgs } = shared as SharedStore;
      const agent = buildAgent(new StateflowSaver(store));
      const config = { configurable: { thread_id: THREAD } };
      await agent.invoke({ messages: [{ role: 'user', content: 'fencing' }] }, config);
      expect((await agent.getState(config)).next).toEqual(['review']);

      const racers = [startRacer('yes', racerArgs), startRacer('no', racerArgs)];
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
      // One checkpoint per step: the loser's put added none beside the winner's.
      expect(history.map((s) => s.metadata?.step)).toEqual([4, 3, 2, 1, 0, -1]);
      expect((await agent.getState(config)).values.approved).toBe(winner?.approved);
      // The refused put named the winner's checkpoint after review (or, if the winner was quicker, the one after it).
      const winnerAfterReview = history.filter((s) => (s.metadata?.step ?? 0) >= 3).map((s) => s.config.configurable?.['checkpoint_id']);
      expect(winnerAfterReview).toContain(refused?.details?.['head_checkpoint_id']);
      expect(await shared?.audit()).toMatchObject({ problems: [] });
    },
  );
});
