/**
 * Server discovery for a store directory (DESIGN.md "Processes and backends": one writer per
 * LevelDB store, every other process a client of it).
 *
 * Every `stateflow serve` of a store directory — started by hand or in the background — writes
 * `stateflow-server.json` into that directory once it holds the store and listens: its address,
 * its pid and a random token. The file is created with mode 0600, so only the store's owner can
 * read the token; a server that requires the token then refuses every other local user. The
 * LevelDB lock, not this file, decides who serves a store: the file is written only by the
 * process that holds the lock, and a file whose process died or whose port refuses connections
 * is stale and ignored (the next server replaces it).
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isJsonObject } from '@stateflow/core';

/** Name of the discovery file inside a store directory. */
export const DISCOVERY_FILE = 'stateflow-server.json';

/** Contents of the discovery file. */
export interface ServerDiscovery {
  /** Base URL the server listens on, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Process id of the server. */
  pid: number;
  /** Random token (64 hex); local clients send it as `X-Stateflow-Token`. */
  token: string;
  /** Whether the server refuses requests that do not carry the token. */
  requireToken: boolean;
  /** Whether the server was started in the background (by `stateflow mcp`). */
  background: boolean;
  /** Idle period after which the server stops by itself, in ms; `null` for never. */
  idleTimeoutMs: number | null;
  /** When the server started (ISO 8601). */
  startedAt: string;
}

/** A fresh random token: 32 bytes as 64 hex characters. */
export function newServerToken(): string {
  return randomBytes(32).toString('hex');
}

/** Path of the discovery file of store directory `dir`. */
export function discoveryPath(dir: string): string {
  return path.join(dir, DISCOVERY_FILE);
}

/**
 * Write the discovery file of `dir` atomically (a temporary sibling renamed over it), mode 0600.
 * @throws the file system's error when `dir` cannot be written.
 */
export async function writeDiscovery(dir: string, info: ServerDiscovery): Promise<void> {
  const target = discoveryPath(dir);
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * The discovery file of `dir`, or `null` when there is none or it does not hold a discovery
 * record (a half-written or foreign file is treated as absent).
 */
export async function readDiscovery(dir: string): Promise<ServerDiscovery | null> {
  let text: string;
  try {
    text = await readFile(discoveryPath(dir), 'utf8');
  } catch {
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isJsonObject(value)) return null;
  const { url, pid, token } = value;
  if (typeof url !== 'string' || typeof token !== 'string' || !Number.isSafeInteger(pid)) return null;
  return {
    url,
    pid: pid as number,
    token,
    requireToken: value['requireToken'] === true,
    background: value['background'] === true,
    idleTimeoutMs: typeof value['idleTimeoutMs'] === 'number' ? value['idleTimeoutMs'] : null,
    startedAt: typeof value['startedAt'] === 'string' ? value['startedAt'] : '',
  };
}

/** Remove the discovery file of `dir` if it still names process `pid` (a successor's file stays). */
export async function removeDiscovery(dir: string, pid: number): Promise<void> {
  const current = await readDiscovery(dir);
  if (current !== null && current.pid === pid) await rm(discoveryPath(dir), { force: true });
}

/**
 * Whether process `pid` exists (signal 0). A process of another user (`EPERM`) exists too.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
