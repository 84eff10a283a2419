/**
 * The store's server, started in the background when none runs (root README "MCP": any number
 * of windows share one store). `stateflow mcp` calls {@link ensureServer}: it uses the live
 * server named by the store directory's discovery file, or starts `stateflow serve` for the
 * directory as a detached process — a free port, the token required, an idle timeout, bodies up
 * to 8 MiB, its output appended to `stateflow-server.log` in the store directory — and waits for
 * it to serve.
 *
 * Two starters at the same moment end with one server: both spawn, LevelDB's lock lets one
 * child open the store, the other child exits with STORE_LOCKED, and both starters find the
 * winner through its discovery file.
 */
import { spawn } from 'node:child_process';
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StateflowError } from '@stateflow/core/errors';
import type { ServerDiscovery } from '@stateflow/client/discovery';
import { lockedError } from './store-access.js';

/** Default idle timeout of a background server, in ms (15 minutes). */
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;

/** Log file of a background server, inside the store directory. */
export const SERVER_LOG = 'stateflow-server.log';

/**
 * Largest request body of a background server, in bytes (8 MiB). `serve` defaults to 1 MiB to
 * bound what an unknown client can make the event loop do; a background server answers only its
 * token, that is the store's owner, so stdio agents keep the body size they had before they went
 * through a server.
 */
export const BACKGROUND_BODY_LIMIT = 8 * 1024 * 1024;

/** How long a start may take before it fails, in ms. */
const START_TIMEOUT_MS = 20_000;

/** The built `stateflow` executable (this package's `dist/bin.js`). */
const BIN = fileURLToPath(new URL('../bin.js', import.meta.url));

/** Options of {@link ensureServer}. */
export interface EnsureServerOptions {
  /** Idle timeout of a server this call starts, in ms. Default {@link DEFAULT_IDLE_TIMEOUT_MS}. */
  idleTimeoutMs?: number;
  /** Environment of a server this call starts. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Told when a live process on the discovery file's address is not the store's server (`findServer`'s `onIgnored`). */
  onIgnored?: (error: StateflowError) => void;
}

/**
 * The live server of store directory `dir`, started in the background when none runs.
 * @throws STORE_LOCKED when another process (not a server) holds `dir`; STORE_UNAVAILABLE when
 *   the started server does not come up (its log's last lines are in the message).
 */
export async function ensureServer(dir: string, options: EnsureServerOptions = {}): Promise<ServerDiscovery> {
  const { findServer } = await import('@stateflow/client/discovery');
  // The loop below asks every 50 ms: say each finding once.
  const told = new Set<string>();
  const tell = options.onIgnored;
  const find = tell === undefined ? {} : { onIgnored: (error: StateflowError) => void (told.has(error.message) || (told.add(error.message), tell(error))) };
  const running = await findServer(dir, find);
  if (running !== null) return running;
  await mkdir(dir, { recursive: true });
  const log = await open(path.join(dir, SERVER_LOG), 'a', 0o600);
  let exited: number | null = null;
  try {
    const child = spawn(
      process.execPath,
      [
        BIN,
        '--dir',
        dir,
        'serve',
        '--port',
        '0',
        '--require-token',
        '--background',
        '--idle-timeout',
        String(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
        '--body-limit',
        String(BACKGROUND_BODY_LIMIT),
      ],
      // Detached with its own output: the server outlives this process and never holds its stdio.
      { detached: true, stdio: ['ignore', log.fd, log.fd], env: options.env ?? process.env, cwd: dir },
    );
    child.once('exit', (code) => (exited = code ?? 1));
    child.unref();
  } finally {
    await log.close();
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const found = await findServer(dir, find);
    if (found !== null) return found;
    // Exit 4 is STORE_LOCKED: another starter's server took the store; wait for its file.
    if (exited !== null && exited !== 4) throw await startFailed(dir, `exited with code ${exited}`);
    if (Date.now() > deadline) {
      if (exited === 4) throw await lockedError(dir, undefined);
      throw await startFailed(dir, `did not serve within ${START_TIMEOUT_MS / 1000} s`);
    }
  }
}

async function startFailed(dir: string, what: string): Promise<StateflowError<'STORE_UNAVAILABLE'>> {
  const logFile = path.join(dir, SERVER_LOG);
  const tail = (await readFile(logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-3).join(' | ');
  return new StateflowError(
    'STORE_UNAVAILABLE',
    `The background stateflow server for ${dir} ${what}${tail === '' ? '' : `: ${tail}`} (log: ${logFile}).`,
    { dir, outcome: 'not-sent' },
  );
}
