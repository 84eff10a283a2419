/**
 * The in-memory backend: the Level adapter (`level-storage.ts`) over `memory-level`.
 */
import type { MemoryLevel } from 'memory-level';
import { openLevelStorage } from './level-storage.js';
import type { Storage } from './storage.js';

/**
 * Open storage over a `memory-level` database: a fresh one, or `db` (made with
 * `{ keyEncoding: 'view', valueEncoding: 'view' }`), e.g. to open the same data again after a
 * close, as a reopen on disk would. Nothing persists past the process; `sync` has nothing to sync.
 */
export async function openMemoryStorage(db?: MemoryLevel<Uint8Array, Uint8Array>): Promise<Storage> {
  // Loaded here, not with the module: a process on a LevelDB directory (the CLI) never needs it.
  const level = db ?? new (await import('memory-level')).MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
  return openLevelStorage(level, { location: null, capabilities: { persistent: false, fsync: false, soleWriter: true, reopenAfterFailedWrite: false } });
}
