/**
 * A publish costs what it changes (README "State trees"): one-key publishes into an object of
 * 100,000 keys, single and in publishMany batches, read back by path (`valueAt`) and whole
 * (`stateAt`) at the head and at past revisions, across a reopen, with a clean audit. On an
 * engine that copied the object per publish this test would take minutes; it takes seconds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import { seededRandom } from '@stateflow/test-kit';
import { backends, type Harness } from './test-support/backends.js';

const N = 100_000;
const STREAM = 'cwd:/big';
const at = (key: string) => [{ kind: 'key', key: 'lazy' }, { kind: 'key', key: 'memory' }, { kind: 'key', key }] as const;

describe.each(backends)('a state of 100,000 keys on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create();
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('takes 1,000 one-key publishes and reads any key at any revision by path, as the whole state has it', async () => {
    const memory: Record<string, JsonValue> = {};
    for (let i = 0; i < N; i++) memory[`k${i}`] = `value ${i}`;
    await h.store.publish({ changes: { [STREAM]: { lazy: { memory } } } });
    const reference: Record<string, JsonValue> = { ...memory };
    const snapshots = new Map<number, string>();
    const random = seededRandom(3);
    const change = (i: number): JsonObject => {
      const key = `k${Math.floor(random() * (N + 50))}`;
      const value = random() < 0.1 ? null : `changed ${i}`;
      if (value === null) delete reference[key];
      else reference[key] = value;
      return { [STREAM]: { lazy: { memory: { [key]: value } } } };
    };
    let rev = 1;
    for (let i = 0; i < 1_000; ) {
      if (i % 250 < 150) {
        const r = await h.store.publish({ changes: change(i++) });
        if (r.status === 'accepted') rev += 1;
      } else {
        const results = await h.store.publishMany(Array.from({ length: 100 }, () => ({ changes: change(i++) })));
        rev += results.filter((r) => r.status === 'accepted').length;
      }
      if (i % 250 === 0) snapshots.set(rev, JSON.stringify({ lazy: { memory: reference } }));
    }
    expect((await h.store.head(STREAM)).rev).toBe(rev);
    const store = await h.reopen();
    for (const [r, text] of snapshots) {
      const state = JSON.parse(text) as { lazy: { memory: Record<string, JsonValue> } };
      for (const key of ['k0', `k${Math.floor(random() * N)}`, `k${N + 3}`]) expect(await store.valueAt(STREAM, r, at(key))).toBe(state.lazy.memory[key]);
      expect(await store.valueAt(STREAM, r, [{ kind: 'key', key: 'lazy' }, { kind: 'key', key: 'absent' }])).toBeUndefined();
    }
    const [[last, text]] = [...snapshots].slice(-1) as [[number, string]];
    expect(JSON.stringify(await store.stateAt(STREAM, last))).toBe(text);
    expect(JSON.stringify(await store.state(STREAM))).toBe(JSON.stringify({ lazy: { memory: reference } }));
    expect((await store.audit()).problems).toEqual([]);
  });

  it('valueAt checks its path and revision', async () => {
    await h.store.publish({ changes: { [STREAM]: { lazy: { list: [1, { a: 2 }] } } } });
    await h.store.publish({ changes: { [STREAM]: { lazy: { list: [3] } } } });
    const list = [{ kind: 'key', key: 'lazy' }, { kind: 'key', key: 'list' }] as const;
    expect(await h.store.valueAt(STREAM, 1, [...list, { kind: 'index', index: 1 }, { kind: 'key', key: 'a' }])).toBe(2);
    expect(await h.store.valueAt(STREAM, 2, [...list, { kind: 'index', index: 1 }])).toBeUndefined();
    expect(await h.store.valueAt(STREAM, 2, [])).toEqual({ lazy: { list: [3] } });
    expect(await h.store.valueAt(STREAM, 0, list)).toBeUndefined();
    await expect(h.store.valueAt(STREAM, 3, list)).rejects.toMatchObject({ code: 'REVISION_NOT_FOUND' });
    const untyped = (path: unknown) => h.store.valueAt(STREAM, 1, path as PatchPathStep[]);
    await expect(untyped([{ kind: 'range', start: 0, end: 1 }])).rejects.toMatchObject({ code: 'INPUT_INVALID', details: { field: 'path' } });
    await expect(untyped('lazy')).rejects.toMatchObject({ code: 'INPUT_INVALID', details: { field: 'path' } });
  });
});
