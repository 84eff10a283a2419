/**
 * Stores written before still open, read and audit clean (README "Storage layout": encoding).
 * `test-fixtures/store-v0.1.0` was written by @stateflow/store 0.1.0, whose MessagePack encoder
 * gave every map a fixed 16-bit size (a table and a write-ahead log, checkpoints every 4
 * revisions, a compacted stream, a fork, a revert, idempotency ids); `store-v0.1.0.json` is what
 * that version read back from it. Records written now use variable map sizes; the two kinds live
 * side by side in one store.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { openStore } from './open-store.js';
import { collect } from './test-support/backends.js';
import type { StreamHead, Transition } from './types.js';

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
    dir = await mkdtemp(path.join(tmpdir(), 'stateflow-compat-'));
    await cp(path.join(fixtures, 'store-v0.1.0'), dir, { recursive: true });
    expected = JSON.parse(await readFile(path.join(fixtures, 'store-v0.1.0.json'), 'utf8')) as Expected;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
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
});
