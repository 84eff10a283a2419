/**
 * Any JSON value is stored (README "Storage layout": encoding): objects of more than 65,535 keys —
 * in one patch, and grown by small patches through a checkpoint — are stored and read back
 * exactly, and a member of a commit group never fails another one (each is encoded when staged).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { backends, type Harness } from './test-support/backends.js';

const keys = (n: number, from = 0): JsonObject => {
  const object: JsonObject = {};
  for (let i = from; i < from + n; i++) object[`key${i}`] = i;
  return object;
};

describe.each(backends)('objects of more than 65,535 keys on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 14 });
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('stores a patch of 70,000 keys and reads it back exactly, also after a reopen', async () => {
    const big = keys(70_000);
    const r = await h.store.publish({ changes: { global: { lazy: { index: big } } } });
    expect(r.status).toBe('accepted');
    expect((await h.store.state('global')).lazy).toEqual({ index: big });
    expect(await h.store.patchAt('global', 1)).toEqual({ lazy: { index: big } });
    const store = await h.reopen({ checkpointInterval: 14 });
    expect((await store.stateAt('global', 1)).lazy).toEqual({ index: big });
    expect((await store.audit()).problems).toEqual([]);
  });

  it('keeps accepting small patches after a stream grows past 65,535 keys, through its checkpoint', async () => {
    for (let rev = 1; rev <= 14; rev++) {
      const r = await h.store.publish({ changes: { global: { tactics: keys(5_000, (rev - 1) * 5_000) } } });
      expect(r.transition?.changes[0]?.rev).toBe(rev);
    }
    // Revision 14 is a multiple of K: its checkpoint holds all 70,000 keys.
    const state = await h.store.state('global');
    expect(Object.keys(state.tactics as JsonObject)).toHaveLength(70_000);
    const store = await h.reopen({ checkpointInterval: 14 });
    expect(await store.stateAt('global', 14)).toEqual(state);
    expect(Object.keys((await store.stateAt('global', 13)).tactics as JsonObject)).toHaveLength(65_000);
    expect((await store.audit()).problems).toEqual([]);
  });

  it('a big member of a commit group leaves the other members alone', async () => {
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => h.store.publish({ changes: { [`session:s${i}`]: { tactics: { i } } } })),
      h.store.publish({ changes: { global: { lazy: { index: keys(70_000) } } } }),
      ...Array.from({ length: 10 }, (_, i) => h.store.publish({ changes: { [`session:t${i}`]: { tactics: { i } } } })),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(21).fill('accepted'));
    expect(results.map((r) => r.transition?.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect((await h.store.audit()).problems).toEqual([]);
  });
});
