/**
 * Finding the live server of a store directory from its discovery file (see `discovery.ts`).
 */
import { callServer } from './http-call.js';
import { processAlive, readDiscovery, removeDiscovery } from './discovery.js';
import type { ServerDiscovery } from './discovery.js';
import type { ServerInfo } from './remote-store.js';

/** How long the liveness check of a discovered server may take, in ms. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * The server serving store directory `dir`, or `null` when none does.
 *
 * A discovery file is trusted only when its process is alive and its address answers
 * `GET /v1/server` with the same pid. A file whose process is dead is removed; one whose process
 * lives but whose port refuses connections or answers as another process is ignored (a stale
 * file of a process that reused the pid, or a server still stopping): the next server that
 * takes the store replaces it.
 */
export async function findServer(dir: string): Promise<ServerDiscovery | null> {
  const found = await readDiscovery(dir);
  if (found === null) return null;
  if (!processAlive(found.pid)) {
    await removeDiscovery(dir, found.pid);
    return null;
  }
  try {
    const { body } = await callServer<ServerInfo>({ url: found.url, token: found.token }, 'v1/server', { timeoutMs: PROBE_TIMEOUT_MS });
    return body.pid === found.pid ? found : null;
  } catch {
    return null;
  }
}
