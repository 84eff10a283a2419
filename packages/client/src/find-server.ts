/**
 * Finding the live server of a store directory from its discovery file (see `discovery.ts`).
 */
import { StateflowError, isStateflowError } from '@stateflow/core';
import { callServer } from './http-call.js';
import { processAlive, readDiscovery, removeDiscovery } from './discovery.js';
import type { ServerDiscovery } from './discovery.js';
import type { ServerInfo } from './remote-store.js';
import { verifyServer } from './server-proof.js';

/** How long the liveness check of a discovered server may take, in ms. */
const PROBE_TIMEOUT_MS = 5_000;

/** Options of {@link findServer}. */
export interface FindServerOptions {
  /**
   * Told when a live process answers on the file's address but is not the store's server (it
   * cannot prove it holds the token, or it answers as another pid): the error says what it
   * answered. Such a file is ignored. Default: nothing is told.
   */
  onIgnored?: (error: StateflowError) => void;
}

/**
 * The server serving store directory `dir`, or `null` when none does.
 *
 * A discovery file is trusted only when its process is alive, the process listening on its
 * address proves it holds the file's token (`verifyServer`: only a nonce is sent, never the
 * token), and then, asked with the token, answers `GET /v1/server` with the file's pid. A file
 * whose process is dead is removed; one whose port refuses connections (a server still
 * stopping), or whose port is held by another process, is ignored: the next server that takes
 * the store replaces it.
 */
export async function findServer(dir: string, options: FindServerOptions = {}): Promise<ServerDiscovery | null> {
  const found = await readDiscovery(dir);
  if (found === null) return null;
  if (!processAlive(found.pid)) {
    await removeDiscovery(dir, found.pid);
    return null;
  }
  try {
    // The pid too, before the token goes anywhere: a process relaying the nonce to another live
    // server of this token passes the token proof, but not the pid's.
    await verifyServer({ url: found.url, token: found.token, pid: found.pid });
    const { body } = await callServer<ServerInfo>({ url: found.url, token: found.token }, 'v1/server', { timeoutMs: PROBE_TIMEOUT_MS });
    if (body.pid === found.pid) return found;
    options.onIgnored?.(otherPid(found, body.pid));
    return null;
  } catch (err) {
    if (isStateflowError(err, 'STORE_UNAVAILABLE') && err.details.reason === 'server-unverified') options.onIgnored?.(err);
    return null;
  }
}

function otherPid(found: ServerDiscovery, pid: number | undefined): StateflowError<'STORE_UNAVAILABLE'> {
  return new StateflowError(
    'STORE_UNAVAILABLE',
    `The server on ${found.url} holds the token of the discovery file but answers as pid ${String(pid)}, not ${found.pid}: the file is ignored.`,
    { url: found.url, outcome: 'not-sent', reason: 'server-unverified' },
  );
}
