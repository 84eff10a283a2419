/**
 * What the scrape-time gauges read from a running server (`metrics.ts` {@link MetricSources}):
 * the store's streams and last seq, the session counts, the bytes of the store directory when
 * the server opened it, and the storage's connection pools (PostgreSQL).
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

/** The sources of `context`'s gauges. */
export function metricSources(context: ServerContext): MetricSources {
  return {
    streams: async () => (await context.store.streams()).length,
    storeBytes: async () => (context.dir === null ? null : dirBytes(context.dir)),
    sessions: () => context.sessions.countByStatus(),
    sessionRequestsWaiting: () => context.sessions.waiting(),
    lastSeq: () => context.store.lastSeq(),
    connections: () => context.store.connections?.() ?? [],
  };
}
