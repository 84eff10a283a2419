/**
 * What the scrape-time gauges read from a running server (`metrics.ts` {@link MetricSources}):
 * the store's streams and last seq, the session counts, and the bytes of the store directory
 * when the server opened it.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ServerContext } from '../server-context.js';
import type { MetricSources } from './metrics.js';

/** Sum of the sizes of the files under `dir` (a file removed meanwhile counts 0). */
async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    total += await stat(path.join(entry.parentPath, entry.name)).then((s) => s.size, () => 0);
  }
  return total;
}

/**
 * The sources of a server's gauges, read through `current()` (the context is built after the
 * metrics, which its store's observer needs); before it exists, every gauge reads 0.
 */
export function metricSources(current: () => ServerContext | undefined): MetricSources {
  return {
    streams: async () => (await current()?.store.streams())?.length ?? 0,
    storeBytes: async () => {
      const dir = current()?.dir ?? null;
      return dir === null ? null : dirBytes(dir);
    },
    sessions: async () => (await current()?.sessions.countByStatus()) ?? {},
    lastSeq: () => current()?.store.lastSeq() ?? 0,
  };
}
