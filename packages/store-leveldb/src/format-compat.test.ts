/**
 * A store written by 0.1.0 still opens, reads and audits clean (`@stateflow/store`'s README
 * "Storage layout": encoding, format versions): a version-1 store is migrated to the current
 * version in place on open, and recovered into a copy that opens migrated. The records are read
 * through the documented layout (`test-support/layout.ts`), not the store's decoder. (A
 * version-2 store is the store's own `format-compat.test.ts`, on the memory backend.)
 * `test-fixtures/store-v0.1.0` was written by @stateflow/store 0.1.0, whose MessagePack encoder
 * gave every map a fixed 16-bit size (a table and a write-ahead log, checkpoints every 4
 * revisions, a compacted stream, a fork, a revert, idempotency ids); `store-v0.1.0.json` is what
 * that version read back from it. Records written now use variable map sizes; the two kinds live
 * side by side in one store.
 */
import { createHash } from 'node:crypto';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import type { Storage, StreamHead, Transition } from '@stateflow/store';
import { collect, dump, failureOf, rawWrite, removeDir, tempDir } from '@stateflow/test-kit';
import { openDiskStorage } from './disk-storage.js';
import { openStore } from './open-store.js';
import { recoverStore } from './recover-store.js';
import { decodeRecord, encodeRecord, familyRange, formatKey, sealHolds, sealedBody, streamKey, transitionRecord } from './test-support/layout.js';

const fixtures = fileURLToPath(new URL('../test-fixtures/', import.meta.url));

interface Expected {
  lastSeq: number;
  streams: StreamHead[];
  transitions: Transition[];
  states: Record<string, JsonObject[]>;
}

describe('a store written by version 0.1.0 (16-bit map sizes)', () => {
  let dir: string;
  let expected: Expected;
  beforeEach(async () => {
    dir = await tempDir('compat');
    await cp(path.join(fixtures, 'store-v0.1.0'), dir, { recursive: true });
    expected = JSON.parse(await readFile(path.join(fixtures, 'store-v0.1.0.json'), 'utf8')) as Expected;
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('opens, reads every transition and retained state as that version did, and audits clean', async () => {
    const store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    try {
      expect(store.lastSeq()).toBe(expected.lastSeq);
      expect(await store.streams()).toEqual(expected.streams);
      expect(await collect(store.transitions())).toEqual(expected.transitions);
      for (const head of expected.streams) {
        for (let rev = head.origin; rev <= head.rev; rev++) expect(await store.stateAt(head.stream, rev)).toEqual(expected.states[head.stream]?.[rev - head.origin]);
      }
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('takes new writes beside the old records, and both read back after a reopen', async () => {
    let store = await openStore(dir, { checkpointInterval: 4 });
    const before = await store.state('global');
    for (let i = 1; i <= 6; i++) await store.publish({ changes: { global: { strategy: { added: i } } }, id: `new-${i}` });
    await store.close();
    store = await openStore(dir, { checkpointInterval: 4 });
    try {
      expect(store.lastSeq()).toBe(expected.lastSeq + 6);
      expect(await store.state('global')).toEqual({ ...before, strategy: { ...(before.strategy as JsonObject), added: 6 } });
      expect(await collect(store.transitions({ to: expected.lastSeq }))).toEqual(expected.transitions);
      expect((await store.publish({ changes: { global: { x: 1 } }, id: 'new-3' })).status).toBe('duplicate');
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });

  /** Run `fn` on the raw storage of `dir`, then close it. */
  async function raw<T>(fn: (storage: Storage) => Promise<T>): Promise<T> {
    const storage = await openDiskStorage(dir, { createIfMissing: false });
    try {
      return await fn(storage);
    } finally {
      await storage.close();
    }
  }

  it('is migrated to the current format (5) on open: sealed index records naming each transition, sealed checkpoints with JSON states; a second open changes nothing', async () => {
    expect(await raw(async (s) => decodeRecord((await s.get(formatKey())) as Uint8Array))).toEqual({ format: 'stateflow-store', version: 1 });
    let store = await openStore(dir, { checkpointInterval: 4 });
    await store.close();
    const migrated = await raw(dump);
    await raw(async (s) => {
      expect(decodeRecord((await s.get(formatKey())) as Uint8Array)).toEqual({ format: 'stateflow-store', version: 5 });
      let revisions = 0;
      for await (const [key, value] of s.iterate({})) {
        const k = streamKey(key);
        if (k === null || (k.family !== 'R' && k.family !== 'C')) continue;
        expect(sealHolds(key, value)).toBe(true);
        if (k.family === 'C') {
          expect(Object.keys(sealedBody(value) as object).sort()).toEqual(['json', 'rev', 'seq']);
          continue;
        }
        const body = sealedBody(value) as JsonObject;
        revisions++;
        expect(Object.keys(body).sort()).toEqual(['base', 'seq']);
        const transition = expected.transitions.find((t) => t.seq === body.seq);
        expect(transition?.changes.some((c) => c.stream === k.stream && c.rev === k.n)).toBe(true);
      }
      expect(revisions).toBeGreaterThan(0);
    });
    store = await openStore(dir, { checkpointInterval: 4 });
    await store.close();
    expect(await raw(dump)).toEqual(migrated);
  });

  it('refuses to migrate over a version-1 record that does not verify: STORE_CORRUPT, nothing written', async () => {
    await raw(async (s) => {
      for await (const [key, value] of s.iterate(familyRange('C'))) {
        const cp = decodeRecord(value) as JsonObject;
        (cp.state as JsonObject).tampered = true;
        await rawWrite(s, [{ type: 'put', key, value: encodeRecord(cp) }]);
        break;
      }
    });
    const before = await raw(dump);
    const err = await failureOf(openStore(dir));
    expect(err).toEqual({ code: 'STORE_CORRUPT', details: expect.objectContaining({ detail: 'version-1 checkpoint does not verify; not migrated' }) });
    expect(await raw(dump)).toEqual(before);
  });

  it.each([false, true])('recovers a version-1 store into a copy that opens migrated and audits clean (format record lost: %s)', async (lost) => {
    if (lost) await raw((s) => rawWrite(s, [{ type: 'del', key: formatKey() }]));
    const into = `${dir}-recovered`;
    try {
      const report = await recoverStore(dir, into);
      expect(report.problems).toEqual([]);
      expect(report.dropped).toBe(0);
      const store = await openStore(into, { cacheSize: 0 });
      try {
        for (const head of expected.streams) {
          for (let rev = head.origin; rev <= head.rev; rev++) expect(await store.stateAt(head.stream, rev)).toEqual(expected.states[head.stream]?.[rev - head.origin]);
        }
      } finally {
        await store.close();
      }
    } finally {
      await removeDir(into);
    }
  });
});

/**
 * A store written in format 4 (`test-fixtures/store-v4`, by `make-store-v4.mjs` at the commit
 * it names: each revision's patch in its MessagePack log record and again in its revision-index
 * record; a paged checkpoint, multi-stream transitions, ids, meta, a fork, a revert, a
 * compacted stream, non-ASCII text and a `__proto__` key): opens with its format record alone
 * rewritten, reads every transition, patch and retained state as format 4 did (sha256 of their
 * JSON text, key order included, in `store-v4.json`), audits clean, and takes format-5 writes
 * beside its records.
 */
describe('a store written in format 4 (each patch stored twice)', () => {
  let dir: string;
  let expected: { lastSeq: number; streams: StreamHead[]; transitions: string[]; states: Record<string, string[]>; patches: Record<string, string[]> };
  const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');
  beforeEach(async () => {
    dir = await tempDir('compat-v4');
    await cp(path.join(fixtures, 'store-v4'), dir, { recursive: true });
    expected = JSON.parse(await readFile(path.join(fixtures, 'store-v4.json'), 'utf8')) as typeof expected;
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  /** Every record of `dir`, as `hex(key)=hex(value)` lines. */
  const records = async (): Promise<string[]> => {
    const storage = await openDiskStorage(dir, { createIfMissing: false });
    try {
      return await dump(storage);
    } finally {
      await storage.close();
    }
  };

  /** Check every read of the fixture's history against what format 4 read. */
  async function expectReadsAsFormat4(store: Awaited<ReturnType<typeof openStore>>): Promise<void> {
    expect((await collect(store.transitions({ to: expected.lastSeq }))).map(digest)).toEqual(expected.transitions);
    for (const head of expected.streams) {
      for (let rev = head.origin; rev <= head.rev; rev++) expect(digest(await store.stateAt(head.stream, rev))).toBe(expected.states[head.stream]?.[rev - head.origin]);
      for (let rev = head.origin + 1; rev <= head.rev; rev++) expect(digest(await store.patchAt(head.stream, rev))).toBe(expected.patches[head.stream]?.[rev - head.origin - 1]);
    }
  }

  it('opens with its format record alone rewritten (5), reads everything as format 4 did, and audits clean', async () => {
    const before = await records();
    const store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    try {
      expect(store.lastSeq()).toBe(expected.lastSeq);
      expect(await store.streams()).toEqual(expected.streams);
      await expectReadsAsFormat4(store);
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
    const after = await records();
    expect(after.filter((entry) => !before.includes(entry)).map((entry) => entry.split('=')[0])).toEqual([formatKey().toString('hex')]);
    expect(after.length).toBe(before.length);
  });

  it('writes format-5 records beside the format-4 ones (each patch once, in its log record); both read back after a reopen and audit clean', async () => {
    const before = new Set(await records());
    let store = await openStore(dir, { checkpointInterval: 4 });
    const big = await store.state('cwd:/big');
    for (let i = 1; i <= 6; i++) await store.publish({ changes: { 'cwd:/big': { lazy: { memory: { [`k${i}`]: `after ${i} ✓` } } }, global: { after: i } }, id: `after-${i}` });
    await store.close();
    const storage = await openDiskStorage(dir, { createIfMissing: false });
    try {
      let logged = 0;
      for await (const [key, value] of storage.iterate({})) {
        if (before.has(`${Buffer.from(key).toString('hex')}=${Buffer.from(value).toString('hex')}`)) continue;
        if (key[0] === 0x4c) {
          const t = transitionRecord(key, value);
          expect(t?.sealed).toBe(true);
          expect(t?.body.seq).toBeGreaterThan(expected.lastSeq);
          logged++;
        }
        const k = streamKey(key);
        if (k?.family === 'R') expect(Object.keys(sealedBody(value) as object).sort()).toEqual(['base', 'seq']);
      }
      expect(logged).toBe(6);
    } finally {
      await storage.close();
    }
    store = await openStore(dir, { checkpointInterval: 4, cacheSize: 0 });
    try {
      await expectReadsAsFormat4(store);
      expect(await store.state('cwd:/big')).toEqual({ ...big, lazy: { ...(big.lazy as JsonObject), memory: { ...((big.lazy as JsonObject).memory as JsonObject), ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`k${i}`, `after ${i} ✓`])) } } });
      expect((await store.publish({ changes: { global: { x: 1 } }, id: 'p3' })).status).toBe('duplicate');
      expect((await store.audit()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
