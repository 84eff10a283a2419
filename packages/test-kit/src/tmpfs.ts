/**
 * A real small file system for disk-full tests: a tmpfs of a given size, mounted on a fresh
 * directory (needs root, as on the project's machines and CI), which a test can grow to let
 * writes succeed again, and unmounts at the end.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { unavailable } from './environment.js';

const run = promisify(execFile);

/** A mounted tmpfs. Sizes are in bytes. */
export interface Tmpfs {
  /** The mount point (an empty directory at first). */
  dir: string;
  /** Remount with a new size (bytes): larger lets writes succeed again. */
  resize(bytes: number): Promise<void>;
  /** Unmount and remove the mount point. */
  unmount(): Promise<void>;
}

/**
 * Mount a tmpfs of `bytes` on a new temporary directory, or return the reason it cannot be done
 * here (not root, no `mount`, a sandbox that forbids it) for the caller's skip.
 */
export async function mountTmpfs(bytes: number): Promise<Tmpfs | { unavailable: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'stateflow-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    return { unavailable: `cannot mount a tmpfs (${(err as Error).message.split('\n')[0]}); disk-full tests need root` };
  }
  return {
    dir,
    async resize(size) {
      await run('mount', ['-o', `remount,size=${size}`, dir]);
    },
    async unmount() {
      await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Mount a tmpfs of `bytes` for one test, unmounted after it (`onFinished`, e.g. vitest's
 * `onTestFinished`); where none can be mounted, report it ({@link unavailable}: a failure under
 * CI) and `skip` the test.
 * @returns the mount, or `null` after `skip` was called
 */
export async function tmpfsForTest(bytes: number, test: { skip(): void; onFinished(fn: () => Promise<void>): void }): Promise<Tmpfs | null> {
  const mounted = await mountTmpfs(bytes);
  if ('unavailable' in mounted) {
    unavailable(mounted.unavailable);
    test.skip();
    return null;
  }
  test.onFinished(() => mounted.unmount());
  return mounted;
}
