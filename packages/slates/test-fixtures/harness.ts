/** Test harness: a real classic-level store in a temp dir, a fixed clock, fixture loading. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';

export const fixturesDir = path.dirname(fileURLToPath(import.meta.url));

export function fixture(name: string): string {
  return path.join(fixturesDir, name);
}

/** A store on disk (classic-level) in a fresh temp dir; `close()` closes it and deletes the dir. */
export async function diskStore(): Promise<{ store: Store; dir: string; close: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'stateflow-slates-'));
  const store = await openStore(dir);
  return {
    store,
    dir,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A clock that advances one second per call from 2026-01-01T00:00:00Z. */
export function steppingClock(): () => Date {
  let t = Date.parse('2026-01-01T00:00:00.000Z');
  return () => {
    const d = new Date(t);
    t += 1000;
    return d;
  };
}
