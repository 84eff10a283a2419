/**
 * Paged checkpoints on LevelDB (`@stateflow/store`'s README "Paged checkpoints", format 4):
 * - `test-fixtures/store-v3-large` is a version-3 store written by the code before them
 *   (`make-store-v3-large.mjs`: a state of 2,000 keys in single-record checkpoints every 4
 *   revisions, 12 one-key publishes with ids, a second small stream), `store-v3-large.json` the
 *   sha256 of each state as that version read it. It opens with its format record alone
 *   rewritten, reads every revision and path as before, audits clean, and then takes writes that
 *   are checkpointed in pages beside its single-record checkpoints — through a reopen, a
 *   compaction (which sweeps the pages no retained checkpoint names) and a clean audit.
 * - `test-fixtures/store-v4-paged` is a version-4 store of the first paged layout, whose roots
 *   name every page (`make-store-v4-paged.mjs`: 3,000 keys, paged checkpoints every 4
 *   revisions, 14 one-key publishes). It opens with nothing rewritten, reads every revision and
 *   path as it did, audits clean, and takes writes checkpointed with roots naming directories
 *   beside the old roots — through a reopen, a compaction sweeping the old pages no retained
 *   checkpoint names, and a clean audit.
 */
import { createHash } from 'node:crypto';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { dump, removeDir, tempDir } from '@stateflow/test-kit';
import { openDiskStorage } from './disk-storage.js';
import { openStore } from './open-store.js';
import { decodeRecord, familyRange, formatKey, sealedBody, streamKey } from './test-support/layout.js';

const fixtures = fileURLToPath(new URL('../test-fixtures/', import.meta.url));
const STREAM = 'cwd:/big';
const digest = (state: JsonObject): string => createHash('sha256').update(JSON.stringify(state)).digest('hex');
const memberPath = (key: string) => [{ kind: 'key', key: 'lazy' }, { kind: 'key', key: 'memory' }, { kind: 'key', key }] as const;
/** Family byte of the page records (`P`). */
const PAGE = 0x50;

describe('a version-3 store with a large state, on LevelDB', () => {
  let dir: string;
  let expected: { stateDigests: string[]; global: JsonObject; lastSeq: number };
  beforeEach(async () => {
    dir = await tempDir('paged');
    await cp(path.join(fixtures, 'store-v3-large'), dir, { recursive: true });
    expected = JSON.parse(await readFile(path.join(fixtures, 'store-v3-large.json'), 'utf8')) as typeof expected;
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  /** Every key of the store's directory, hex (values left out). */
  async function keys(): Promise<string[]> {
    const storage = await openDiskStorage(dir);
    try {
      return (await dump(storage)).map((entry) => entry.split('=')[0] as string);
    } finally {
      await storage.close();
    }
  }

  it('opens with the format record alone rewritten, reads as version 3 did, then checkpoints in pages', async () => {
    const before = await keys();
    let store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    expect(store.lastSeq()).toBe(expected.lastSeq);
    await store.close();
    expect(await keys()).toEqual(before);
    const storage = await openDiskStorage(dir);
    expect(decodeRecord((await storage.get(formatKey())) as Uint8Array)).toEqual({ format: 'stateflow-store', version: 5 });
    await storage.close();
    store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    const digests = async (): Promise<string[]> => {
      const out: string[] = [];
      for (let rev = 1; rev <= expected.stateDigests.length; rev++) out.push(digest(await store.stateAt(STREAM, rev)));
      return out;
    };
    expect(await digests()).toEqual(expected.stateDigests);
    expect(await store.valueAt(STREAM, 3, memberPath('k26'))).toBe('changed 2');
    expect(await store.state('global')).toEqual(expected.global);
    expect((await store.audit()).problems).toEqual([]);
    // Writes now: the next checkpoints are paged (a root and pages), beside the old single records.
    for (let i = 0; i < 16; i++) await store.publish({ changes: { [STREAM]: { lazy: { memory: { [`k${i * 17}`]: `after ${i}`, [`later${i}`]: i } } } } });
    const head = (await store.head(STREAM)).rev;
    const states = new Map<number, string>();
    for (let rev = head - 8; rev <= head; rev++) states.set(rev, JSON.stringify(await store.stateAt(STREAM, rev)));
    await store.close();
    expect((await keys()).filter((key) => Buffer.from(key, 'hex')[0] === PAGE).length).toBeGreaterThan(0);
    store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    try {
      expect(await digests()).toEqual(expected.stateDigests);
      for (const [rev, text] of states) {
        expect(JSON.stringify(await store.stateAt(STREAM, rev))).toBe(text);
        const memory = (JSON.parse(text) as { lazy: { memory: Record<string, unknown> } }).lazy.memory;
        for (const key of ['k0', 'k17', 'later3', 'absent']) expect(await store.valueAt(STREAM, rev, memberPath(key))).toEqual(memory[key]);
      }
      expect((await store.audit()).problems).toEqual([]);
      await store.compact(STREAM, { keepRevisions: 5 });
      for (const [rev, text] of states) if (rev > head - 5) expect(JSON.stringify(await store.stateAt(STREAM, rev))).toBe(text);
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('a version-4 store of the first paged layout (roots naming every page), on LevelDB', () => {
  let dir: string;
  let expected: { stateDigests: string[]; global: JsonObject; lastSeq: number };
  beforeEach(async () => {
    dir = await tempDir('paged-v4');
    await cp(path.join(fixtures, 'store-v4-paged'), dir, { recursive: true });
    expected = JSON.parse(await readFile(path.join(fixtures, 'store-v4-paged.json'), 'utf8')) as typeof expected;
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  /** Every record of the store's directory, as hex key=value. */
  async function records(): Promise<string[]> {
    const storage = await openDiskStorage(dir);
    try {
      return await dump(storage);
    } finally {
      await storage.close();
    }
  }

  /** How many page and directory records the store holds. */
  const pageCount = async (): Promise<number> => (await records()).filter((entry) => Buffer.from(entry.split('=')[0] as string, 'hex')[0] === PAGE).length;

  /** The revisions whose checkpoint root names its pages (`pages`) and those whose root names directories (`dirs`). */
  async function roots(): Promise<{ pages: number[]; dirs: number[] }> {
    const storage = await openDiskStorage(dir);
    const out = { pages: [] as number[], dirs: [] as number[] };
    try {
      for await (const [key, value] of storage.iterate(familyRange('C'))) {
        const k = streamKey(key);
        const body = sealedBody(value) as Record<string, unknown>;
        if (k?.stream !== STREAM) continue;
        if ('pages' in body) out.pages.push(k.n);
        if ('dirs' in body) out.dirs.push(k.n);
      }
      return out;
    } finally {
      await storage.close();
    }
  }

  it('opens with only its format record rewritten, reads as it did, then writes roots naming directories beside the old roots', async () => {
    const FORMAT_KEY = Buffer.from('Mformat').toString('hex');
    const withoutFormat = (entries: string[]): string[] => entries.filter((entry) => !entry.startsWith(`${FORMAT_KEY}=`));
    const before = await records();
    let store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    expect(store.lastSeq()).toBe(expected.lastSeq);
    await store.close();
    expect(withoutFormat(await records())).toEqual(withoutFormat(before));
    expect(await roots()).toEqual({ pages: [1, 5, 9, 13], dirs: [] });
    store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    const digests = async (): Promise<string[]> => {
      const out: string[] = [];
      for (let rev = 1; rev <= expected.stateDigests.length; rev++) out.push(digest(await store.stateAt(STREAM, rev)));
      return out;
    };
    expect(await digests()).toEqual(expected.stateDigests);
    // k26 changed at revision 3 (i = 2), k52 deleted at 5 (i = 4), new7 added at 8.
    for (const rev of [3, 5, 8, 14]) {
      const memory = (await store.stateAt(STREAM, rev)).lazy as { memory: Record<string, unknown> };
      for (const key of ['k26', 'k52', 'new7', 'k2999', 'absent']) expect(await store.valueAt(STREAM, rev, memberPath(key))).toEqual(memory.memory[key]);
    }
    expect(await store.valueAt(STREAM, 3, memberPath('k26'))).toBe('changed 2');
    expect(await store.state('global')).toEqual(expected.global);
    expect((await store.audit()).problems).toEqual([]);
    for (let i = 0; i < 16; i++) await store.publish({ changes: { [STREAM]: { lazy: { memory: { [`k${i * 17}`]: `after ${i}`, [`later${i}`]: i } } } } });
    const head = (await store.head(STREAM)).rev;
    const states = new Map<number, string>();
    for (let rev = head - 8; rev <= head; rev++) states.set(rev, JSON.stringify(await store.stateAt(STREAM, rev)));
    await store.close();
    const written = await roots();
    expect(written.pages).toEqual([1, 5, 9, 13]);
    expect(written.dirs.length).toBeGreaterThan(0);
    expect(Math.min(...written.dirs)).toBeGreaterThan(15);
    store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    try {
      expect(await digests()).toEqual(expected.stateDigests);
      for (const [rev, text] of states) {
        expect(JSON.stringify(await store.stateAt(STREAM, rev))).toBe(text);
        const memory = (JSON.parse(text) as { lazy: { memory: Record<string, unknown> } }).lazy.memory;
        for (const key of ['k0', 'k17', 'later3', 'k26', 'absent']) expect(await store.valueAt(STREAM, rev, memberPath(key))).toEqual(memory[key]);
      }
      expect((await store.audit()).problems).toEqual([]);
      await store.close();
      const pagesBefore = await pageCount();
      store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
      await store.compact(STREAM, { keepRevisions: 5 });
      for (const [rev, text] of states) if (rev > head - 5) expect(JSON.stringify(await store.stateAt(STREAM, rev))).toBe(text);
      expect((await store.audit()).problems).toEqual([]);
      await store.close();
      // The old roots are gone, and with them the old pages no retained root names through a directory.
      expect((await roots()).pages).toEqual([]);
      expect(await pageCount()).toBeLessThan(pagesBefore);
      store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
      for (const [rev, text] of states) if (rev > head - 5) expect(JSON.stringify(await store.stateAt(STREAM, rev))).toBe(text);
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
