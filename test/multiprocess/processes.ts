/**
 * Real `stateflow` processes for the multi-process tests, started the way users start them:
 * `stateflow mcp` spawned as an agent's MCP config would (the first one starts the store's
 * server in the background), Streamable HTTP clients of that server's `/mcp`, and `stateflow
 * stop` in teardown. Background servers log to `stateflow-server.log` in their store directory
 * (never to the test's stdio) and get a short idle timeout, so a failed test leaves nothing
 * running for long.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isPostgresUrl } from '@stateflow/store-postgres';
import { BIN, startServe, stateflow, stopServe } from '../cli/helpers.js';

/** Idle timeout of the background servers the tests start, in ms. */
export const TEST_IDLE_MS = 20_000;

/** What the store directory's discovery file says. */
export interface Discovery {
  url: string;
  pid: number;
  token: string;
}

/** The discovery file of `dir`. */
export async function discovery(dir: string): Promise<Discovery> {
  return JSON.parse(await readFile(path.join(dir, 'stateflow-server.json'), 'utf8')) as Discovery;
}

/**
 * An MCP SDK client of a spawned `stateflow mcp` for the store at `location` (a directory, or a
 * PostgreSQL URL given as `--store`), with owner args such as `--cwd /p`.
 */
export async function stdioAgent(location: string, owners: string[], name = 'stdio-agent'): Promise<Client> {
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, isPostgresUrl(location) ? '--store' : '--dir', location, ...owners, 'mcp', '--idle-timeout', String(TEST_IDLE_MS)],
      stderr: 'ignore',
    }),
  );
  return client;
}

/** An MCP SDK client of the server's `/mcp` over Streamable HTTP. */
export async function httpAgent(url: string, query: string, headers: Record<string, string>, name = 'http-agent'): Promise<Client> {
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?${query}`, url), { requestInit: { headers } }));
  return client;
}

/** Stop the server of `dir` (`stateflow stop`); fine when none runs. */
export async function stopServer(dir: string): Promise<void> {
  const result = await stateflow(['--dir', dir, 'stop']);
  if (result.code !== 0) throw new Error(`stateflow stop failed (${result.code}): ${result.stderr}`);
}

/** Close clients, ignoring ones already closed. */
export async function closeAll(clients: (Client | undefined)[]): Promise<void> {
  await Promise.all(clients.map((client) => client?.close().catch(() => undefined)));
}

/** A `stateflow serve` spawned by a test, with the URL from its banner. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** SIGTERM it and wait for its exit. */
  stop(): Promise<void>;
}

/**
 * Spawn `stateflow --dir DIR serve --port 0 …args` (`--store URL` for a PostgreSQL URL), with
 * `env` added to its environment; resolves once it prints its banner.
 */
export async function spawnServe(location: string, args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  const store = isPostgresUrl(location) ? '--store' : '--dir';
  const { child, banner } = await startServe([store, location, 'serve', '--port', '0', ...args], { STATEFLOW_API_KEYS: '', ...env }, process.cwd());
  const url = /stateflow serving on (http:\/\/\S+)/.exec(banner)?.[1];
  if (url === undefined) throw new Error(`serve printed no URL: ${banner}`);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await stopServe(child);
  };
  return { child, url, stop };
}
