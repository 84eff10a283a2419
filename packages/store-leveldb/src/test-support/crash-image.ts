/**
 * Crash images for write-ahead-log tests: the files of a store copied while it is open, as a
 * crash (SIGKILL, power loss after fsync) would leave them — every acknowledged transition in
 * the write-ahead log, nothing flushed into tables by a clean close.
 */
import { cp, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Durability, Store } from '@stateflow/store';
import { tempDir } from '@stateflow/test-kit';
import { openStore } from '../open-store.js';

/** A crash image and the name of its write-ahead log. */
export interface CrashImage {
  dir: string;
  log: string;
  lastSeq: number;
}

/**
 * Open a store in a new temp directory, run `work` (with fsync durability unless `options` say
 * otherwise), copy the directory while the store is open (without LOCK), then close the store.
 * The image was written on this boot of the machine; to open it "after a reboot", open it with
 * `STATEFLOW_BOOT_ID` set to another id ({@link afterReboot}).
 */
export async function crashImage(work: (store: Store) => Promise<void>, options: { durability?: Durability } = {}): Promise<CrashImage> {
  const live = await tempDir('live');
  const dir = await tempDir('image');
  const store = await openStore(live, { durability: options.durability ?? 'fsync' });
  try {
    await work(store);
    await cp(live, dir, { recursive: true, filter: (file) => path.basename(file) !== 'LOCK' });
  } finally {
    await store.close();
  }
  const log = (await readdir(dir)).filter((name) => name.endsWith('.log')).sort().at(-1);
  if (log === undefined) throw new Error(`crash image ${dir} has no write-ahead log`);
  return { dir, log, lastSeq: store.lastSeq() };
}

/** Copy an image into a new temp directory, to damage it. */
export async function copyImage(image: CrashImage): Promise<string> {
  const dir = await tempDir('damaged');
  await cp(image.dir, dir, { recursive: true });
  return dir;
}

/**
 * The byte offset of the physical record of a LevelDB log that holds byte `at` (32 KiB blocks,
 * 7-byte headers, zero trailers), computed independently of the store's own reader.
 */
export function recordAt(log: Uint8Array, at: number): number {
  let pos = 0;
  while (pos < log.length) {
    const left = 32_768 - (pos % 32_768);
    if (left < 7) {
      pos += left;
      continue;
    }
    const length = (log[pos + 4] as number) | ((log[pos + 5] as number) << 8);
    if (at < pos + 7 + length) return pos;
    pos += 7 + length;
  }
  throw new Error(`byte ${at} is beyond the log`);
}

/** Run `open` as a process of another boot of the machine would (a simulated reboot: `STATEFLOW_BOOT_ID`). */
export async function afterReboot<T>(open: () => Promise<T>): Promise<T> {
  const before = process.env.STATEFLOW_BOOT_ID;
  process.env.STATEFLOW_BOOT_ID = 'a-later-boot-of-the-machine';
  try {
    return await open();
  } finally {
    if (before === undefined) delete process.env.STATEFLOW_BOOT_ID;
    else process.env.STATEFLOW_BOOT_ID = before;
  }
}
