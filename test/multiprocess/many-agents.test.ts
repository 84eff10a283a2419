/**
 * Eight agents on one store at once, as users run them: four `stateflow mcp` stdio processes
 * (the first starts the store's server in the background, the others find it) and four MCP
 * Streamable HTTP clients of that server's `/mcp`, each issuing 100 concurrent `patch_state`
 * calls on distinct keys and on keys they all share. Then the same with the server killed with
 * SIGKILL in the middle.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonLines, removeDir, stateflow, tempDir } from '../cli/helpers.js';
import { closeAll, discovery, httpAgent, stdioAgent, stopServer } from './processes.js';

const PROJECT = '/work/project';
const STREAM = `cwd:${PROJECT}`;
const CALLS = 100;
/** A call that has not settled after this long is a hang. */
const HANG_MS = 120_000;

interface Outcome {
  agent: number;
  call: number;
  acknowledged: boolean;
  /** Error code of a failed call (tool error or thrown). */
  code?: string;
}

let dir: string | undefined;
let clients: Client[] = [];

afterEach(async () => {
  await closeAll(clients);
  clients = [];
  if (dir !== undefined) {
    await stopServer(dir);
    await removeDir(dir);
    dir = undefined;
  }
});

/** Start 4 stdio agents (the first alone, so it starts the server) and 4 HTTP agents. */
async function startAgents(store: string): Promise<Client[]> {
  const first = await stdioAgent(store, ['--cwd', PROJECT], 'stdio-0');
  // The server starts on the first request; the other stdio agents must find it, not start one.
  await first.callTool({ name: 'read_state', arguments: { path: 'cwd', projection: 'keys' } });
  const others = await Promise.all([1, 2, 3].map((i) => stdioAgent(store, ['--cwd', PROJECT], `stdio-${i}`)));
  const server = await discovery(store);
  const http = await Promise.all(
    [4, 5, 6, 7].map((i) => httpAgent(server.url, `cwd=${encodeURIComponent(PROJECT)}`, { 'x-stateflow-token': server.token }, `http-${i}`)),
  );
  return [first, ...others, ...http];
}

/** One agent's call `n`: a key of its own and keys every agent writes. */
function patchOf(agent: number, n: number): object {
  return { patch: { lazy: { agents: { [`a${agent}`]: { [`c${n}`]: n } }, shared: { last: `a${agent}-c${n}`, [`k${n % 10}`]: agent } } } };
}

/** Every agent's 100 calls at once; each outcome, with a hang turned into a failure. */
async function runCalls(agents: Client[]): Promise<Outcome[]> {
  const calls = agents.flatMap((client, agent) =>
    Array.from({ length: CALLS }, async (_, call): Promise<Outcome> => {
      let timer: NodeJS.Timeout | undefined;
      const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`call a${agent}-c${call} hung`)), HANG_MS)));
      try {
        const result = (await Promise.race([client.callTool({ name: 'patch_state', arguments: patchOf(agent, call) }), hang])) as {
          isError?: boolean;
          content: { text: string }[];
        };
        if (result.isError !== true) return { agent, call, acknowledged: true };
        return { agent, call, acknowledged: false, code: (JSON.parse(result.content[0]?.text ?? '{}') as { code?: string }).code ?? 'none' };
      } catch (err) {
        if ((err as Error).message.endsWith('hung')) throw err;
        return { agent, call, acknowledged: false, code: agent < 4 ? `thrown: ${(err as Error).message}` : 'thrown' };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return Promise.all(calls);
}

interface LoggedTransition {
  seq: number;
  changes: { stream: string; rev: number; patch: { lazy?: { agents?: Record<string, Record<string, number>> } } }[];
}

/** The whole log through the CLI (which goes through the running server). */
async function exportLog(store: string): Promise<LoggedTransition[]> {
  const result = await stateflow(['--dir', store, 'export']);
  expect(result.code, result.stderr).toBe(0);
  return jsonLines(result.stdout) as LoggedTransition[];
}

/** How many transitions carry each agent call's own key. */
function writesPerCall(log: LoggedTransition[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const transition of log) {
    for (const change of transition.changes) {
      for (const [agent, calls] of Object.entries(change.patch.lazy?.agents ?? {})) {
        for (const call of Object.keys(calls)) counts.set(`${agent}-${call}`, (counts.get(`${agent}-${call}`) ?? 0) + 1);
      }
    }
  }
  return counts;
}

/** seqs 1…N and the stream's revisions 1…N, each once, in order. */
function expectGapFree(log: LoggedTransition[]): void {
  expect(log.map((t) => t.seq)).toEqual(log.map((_, i) => i + 1));
  const revs = log.flatMap((t) => t.changes.filter((c) => c.stream === STREAM).map((c) => c.rev));
  expect(revs).toEqual(revs.map((_, i) => i + 1));
}

async function expectAuditClean(store: string): Promise<void> {
  const audit = await stateflow(['--dir', store, '--json', 'audit']);
  expect(audit.code, audit.stdout).toBe(0);
  expect((JSON.parse(audit.stdout) as { problems: unknown[] }).problems).toEqual([]);
}

describe('8 agents on one store (4 stdio stateflow mcp, 4 Streamable HTTP)', () => {
  it('800 concurrent patch_state calls (and CLI patches among them): each acknowledged once, audit clean, revisions gap-free', async () => {
    dir = await tempDir('agents');
    const store = dir;
    clients = await startAgents(store);
    const server = await discovery(store);
    // CLI patches on the same owner while the agents write: queued in the server with them.
    const cli = Array.from({ length: 4 }, (_, i) =>
      stateflow(['--dir', store, '--cwd', PROJECT, 'patch', JSON.stringify({ lazy: { agents: { cli: { [`c${i}`]: i } } } })]),
    );
    const [outcomes, cliRuns] = await Promise.all([runCalls(clients), Promise.all(cli)]);
    expect(outcomes.filter((o) => !o.acknowledged)).toEqual([]);
    for (const run of cliRuns) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^published transition \d+ \(cwd rev \d+\)\n$/);
    }
    // One server served everyone: the one the first agent started.
    expect((await discovery(store)).pid).toBe(server.pid);

    const log = await exportLog(store);
    expect(log).toHaveLength(8 * CALLS + cli.length);
    const writes = writesPerCall(log);
    for (const o of outcomes) expect(writes.get(`a${o.agent}-c${o.call}`), `a${o.agent}-c${o.call}`).toBe(1);
    for (let i = 0; i < cli.length; i++) expect(writes.get(`cli-c${i}`)).toBe(1);
    expectGapFree(log);
    await expectAuditClean(store);

    const read = await stateflow(['--dir', store, '--cwd', PROJECT, '--json', 'read', 'lazy.agents']);
    expect(read.code, read.stderr).toBe(0);
    const agents = (JSON.parse(read.stdout) as { value: Record<string, Record<string, number>> }).value;
    for (let a = 0; a < 8; a++) expect(Object.keys(agents[`a${a}`] ?? {})).toHaveLength(CALLS);
    expect(agents['cli']).toEqual({ c0: 0, c1: 1, c2: 2, c3: 3 });
  });

  it('SIGKILL of the server mid-run: typed errors, no hang; the restarted server serves every acknowledged write', async () => {
    dir = await tempDir('agents-kill');
    const store = dir;
    clients = await startAgents(store);
    const killed = await discovery(store);
    const running = runCalls(clients);
    // Kill once a fifth of the calls are in the log.
    for (;;) {
      const info = (await (await fetch(new URL('/v1/server', killed.url), { headers: { 'x-stateflow-token': killed.token } })).json()) as { lastSeq: number };
      if (info.lastSeq >= 160) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.kill(killed.pid, 'SIGKILL');
    const outcomes = await running;

    const failed = outcomes.filter((o) => !o.acknowledged);
    expect(failed.length).toBeGreaterThan(0);
    // stdio agents answer tool errors with a Stateflow code; HTTP clients see the SDK's error.
    for (const o of failed) expect(o.agent < 4 ? o.code : 'thrown', `a${o.agent}-c${o.call}`).toBe(o.agent < 4 ? 'STORE_UNAVAILABLE' : 'thrown');

    // A new stateflow mcp (its first request finds or starts the server) reads every acknowledged write.
    const next = await stdioAgent(store, ['--cwd', PROJECT], 'stdio-after');
    clients.push(next);
    const read = (await next.callTool({ name: 'read_state', arguments: { path: 'lazy.agents' } })) as { structuredContent: { value: Record<string, Record<string, number>> } };
    const state = read.structuredContent.value;
    for (const o of outcomes.filter((x) => x.acknowledged)) expect(state[`a${o.agent}`]?.[`c${o.call}`], `a${o.agent}-c${o.call}`).toBe(o.call);
    expect((await discovery(store)).pid).not.toBe(killed.pid);

    const log = await exportLog(store);
    const writes = writesPerCall(log);
    for (const o of outcomes) {
      // Acknowledged: exactly once. Failed with an unknown outcome: at most once, never twice.
      if (o.acknowledged) expect(writes.get(`a${o.agent}-c${o.call}`), `a${o.agent}-c${o.call}`).toBe(1);
      else expect(writes.get(`a${o.agent}-c${o.call}`) ?? 0).toBeLessThanOrEqual(1);
    }
    expectGapFree(log);
    await expectAuditClean(store);
  });
});
