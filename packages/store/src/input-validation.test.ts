/**
 * Every bad input to every public Store method fails with a StateflowError of a stable code and
 * writes nothing (byte-for-byte), on memory-level and classic-level.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { dump } from '@stateflow/test-kit';
import { openMemoryStore } from './open-store.js';
import type { Store, Transition } from './types.js';

function cyclic(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

function deep(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** Values that are not JSON, each placed where a JSON value is expected. */
const nonJson: [string, unknown][] = [
  ['a cycle', cyclic()],
  ['a BigInt', 10n],
  ['a function', () => 1],
  ['a symbol', Symbol('s')],
  ['a Date', new Date(0)],
  ['NaN', Number.NaN],
  ['Infinity', Infinity],
  ['a sparse array', [, 1]], // eslint-disable-line no-sparse-arrays
  ['undefined', undefined],
  ['a Map', new Map([['a', 1]])],
  ['a symbol-keyed object', { ok: 1, [Symbol('k')]: 2 }],
  ['600 levels of nesting', deep(600)],
];

/** The non-JSON values that are not `undefined` (an absent optional field). */
const defined = nonJson.filter(([, v]) => v !== undefined);

/** Numbers that are not valid revisions or seqs. */
const badCounts: unknown[] = [-1, 1.5, Number.NaN, Infinity, 2 ** 60, '1', null, 1n, {}];

const throwing = new Proxy({}, { get: () => { throw new Error('boom'); }, ownKeys: () => { throw new Error('boom'); } });

type Call = [string, (s: Store) => unknown, readonly string[]];

const INPUT = ['INPUT_INVALID'] as const;
const PATCH = ['PATCH_INVALID'] as const;
const STREAM = ['STREAM_INVALID', 'INPUT_INVALID'] as const;

const calls: Call[] = [
  ...nonJson.map(([what, v]): Call => [`publish changes holding ${what}`, (s) => s.publish({ changes: { global: { x: v } } } as never), PATCH]),
  ...nonJson.map(([what, v]): Call => [`publish changes as ${what}`, (s) => s.publish({ changes: { global: v } } as never), PATCH]),
  ...nonJson.map(([what, v]): Call => [`publish meta holding ${what}`, (s) => s.publish({ changes: { global: { ok: 1 } }, meta: { m: v } } as never), INPUT]),
  ...defined.map(([what, v]): Call => [`publish meta as ${what}`, (s) => s.publish({ changes: { global: { ok: 1 } }, meta: v } as never), INPUT]),
  ...defined.map(([what, v]): Call => [`publish id as ${what}`, (s) => s.publish({ changes: { global: { ok: 1 } }, id: v } as never), INPUT]),
  ['publish a patch string with a lone surrogate', (s) => s.publish({ changes: { global: { x: 'a\ud800' } } }), PATCH],
  ['publish a patch key with a lone surrogate', (s) => s.publish({ changes: { global: { '\udc00': 1 } } }), PATCH],
  ['publish meta with a lone surrogate', (s) => s.publish({ changes: { global: { ok: 1 } }, meta: { x: '\ud800' } }), INPUT],
  ['publish id with a lone surrogate', (s) => s.publish({ changes: { global: { ok: 1 } }, id: 'a\ud800' }), INPUT],
  ['publish to a stream with a lone surrogate', (s) => s.publish({ changes: { 'x\udc00': { ok: 1 } } }), STREAM],
  ...badCounts.map((v): Call => [`publish expected ${String(v)}`, (s) => s.publish({ changes: { global: { ok: 1 } }, expected: { global: v } } as never), INPUT]),
  ['publish of null', (s) => s.publish(null as never), INPUT],
  ['publish of a throwing proxy', (s) => s.publish(throwing as never), INPUT],
  ['publish with throwing changes', (s) => s.publish({ changes: throwing } as never), INPUT],
  ['publish with a throwing patch', (s) => s.publish({ changes: { global: throwing } } as never), INPUT],
  ['publish durability', (s) => s.publish({ changes: { global: { ok: 1 } }, durability: 'always' } as never), INPUT],
  ['head of 1n', (s) => s.head(1n as never), STREAM],
  ['state of an object', (s) => s.state(Object.create(null) as never), STREAM],
  ...badCounts.map((v): Call => [`stateAt rev ${String(v)}`, (s) => s.stateAt('global', v as never), INPUT]),
  ...badCounts.map((v): Call => [`patchAt rev ${String(v)}`, (s) => s.patchAt('global', v as never), INPUT]),
  ...badCounts.map((v): Call => [`statesAt seq ${String(v)}`, (s) => s.statesAt(['global'], v as never), INPUT]),
  ...badCounts.map((v): Call => [`effectiveAt seq ${String(v)}`, (s) => s.effectiveAt(['global'], v as never), INPUT]),
  ...badCounts.map((v): Call => [`transition seq ${String(v)}`, (s) => s.transition(v as never), INPUT]),
  ...badCounts.map((v): Call => [`diff revA ${String(v)}`, (s) => s.diff('global', v as never, 1), INPUT]),
  ...badCounts.map((v): Call => [`revert to ${String(v)}`, (s) => s.revert('global', v as never), INPUT]),
  ...badCounts.map((v): Call => [`fork at ${String(v)}`, (s) => s.fork('global', 'copy', { at: v as never }), INPUT]),
  ...badCounts.map((v): Call => [`fork expected ${String(v)}`, (s) => s.fork('global', 'copy', { expected: v as never }), INPUT]),
  ...badCounts.map((v): Call => [`compact keepRevisions ${String(v)}`, (s) => s.compact('global', { keepRevisions: v as never }), INPUT]),
  ...badCounts.map((v): Call => [`transitions from ${String(v)}`, (s) => collect(s.transitions({ from: v as never })), INPUT]),
  ...badCounts.map((v): Call => [`transitions to ${String(v)}`, (s) => collect(s.transitions({ to: v as never })), INPUT]),
  ...badCounts.map((v): Call => [`watch from ${String(v)}`, (s) => s.watch({ from: v as never }), INPUT]),
  ['view of a string', (s) => s.view('global' as never), INPUT],
  ['view of a bad stream', (s) => s.view(['global', 7] as never), STREAM],
  ['statesAt of null', (s) => s.statesAt(null as never, 0), INPUT],
  ['effectiveAt of a Set', (s) => s.effectiveAt(new Set(['global']) as never, 0), INPUT],
  ['transitions with a null range', (s) => collect(s.transitions(null as never)), INPUT],
  ['transitions of a bad stream', (s) => collect(s.transitions({ stream: '' })), STREAM],
  ['fork with null options', (s) => s.fork('global', 'copy', null as never), INPUT],
  ['fork with a cyclic id', (s) => s.fork('global', 'copy', { id: cyclic() as never }), INPUT],
  ['fork onto itself', (s) => s.fork('global', 'global'), INPUT],
  ['merge of null', (s) => s.merge(null as never), INPUT],
  ['merge of a throwing proxy', (s) => s.merge(throwing as never), INPUT],
  ['merge into itself', (s) => s.merge({ from: 'global', into: 'global' }), INPUT],
  ['merge from a stream with a lone surrogate', (s) => s.merge({ from: 'x\udc00', into: 'global' }), STREAM],
  ...badCounts.map((v): Call => [`merge fromRev ${String(v)}`, (s) => s.merge({ from: 'global', into: 'copy', fromRev: v as never }), INPUT]),
  ...badCounts.map((v): Call => [`merge expected ${String(v)}`, (s) => s.merge({ from: 'global', into: 'copy', expected: v as never }), INPUT]),
  ...nonJson.map(([what, v]): Call => [`merge resolve holding ${what}`, (s) => s.merge({ from: 'global', into: 'copy', resolve: { '/a': { value: v } } as never }), INPUT]),
  ...defined.map(([what, v]): Call => [`merge meta as ${what}`, (s) => s.merge({ from: 'global', into: 'copy', meta: v as never }), INPUT]),
  ['merge meta claiming a merge record', (s) => s.merge({ from: 'global', into: 'copy', meta: { merge: { from: 'x', fromRev: 1 } } }), INPUT],
  ['merge prefer', (s) => s.merge({ from: 'global', into: 'copy', prefer: 'both' as never }), INPUT],
  ['merge dryRun', (s) => s.merge({ from: 'global', into: 'copy', dryRun: 'yes' as never }), INPUT],
  ['merge id', (s) => s.merge({ from: 'global', into: 'copy', id: '' }), INPUT],
  ['compact with null options', (s) => s.compact('global', null as never), INPUT],
  ['audit with null options', (s) => s.audit(null as never), INPUT],
  ['audit with a non-function onProgress', (s) => s.audit({ onProgress: 5 as never }), INPUT],
  ['watch with null options', (s) => s.watch(null as never), INPUT],
  ['watch of a string', (s) => s.watch({ streams: 'global' as never }), INPUT],
  ['watch with a fake signal', (s) => s.watch({ signal: {} as never }), INPUT],
  ['append of null', (s) => s.append(null as never), INPUT],
  ['append of a throwing proxy', (s) => s.append(throwing as never), INPUT],
  ...defined.map(([what, v]): Call => [`append meta as ${what}`, async (s) => s.append(await nextTransition(s, { meta: v })), INPUT]),
  ...nonJson.map(([what, v]): Call => [`append patch holding ${what}`, async (s) => s.append(await nextTransition(s, { changes: [{ stream: 'global', rev: 2, patch: { x: v } }] })), PATCH]),
  ['append with a cyclic change', async (s) => s.append(await nextTransition(s, { changes: [cyclic()] })), STREAM],
];

/** A plausible next transition for append: right seq and prevHash, one field overridden (its hash is checked last). */
async function nextTransition(s: Store, override: Record<string, unknown>): Promise<Transition> {
  const prevHash = (await s.transition(s.lastSeq())).hash;
  return { seq: s.lastSeq() + 1, time: new Date(0).toISOString(), changes: [{ stream: 'global', rev: 2, patch: { b: 1 } }], prevHash, hash: '0'.repeat(64), ...override } as never;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe.each(backends)('bad input on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 3 });
    const r = await h.store.publish({ changes: { global: { a: 1 } }, id: 'first' });
    expect(r.status).toBe('accepted');
  });
  afterEach(async () => {
    await h.destroy();
  });

  it('every bad call fails with a StateflowError of the expected code and writes nothing', async () => {
    const before = await h.raw(dump);
    await h.reopen();
    const wrong: string[] = [];
    for (const [name, call, codes] of calls) {
      try {
        await call(h.store);
        wrong.push(`${name}: did not throw`);
      } catch (err) {
        if (!isStateflowError(err)) wrong.push(`${name}: untyped ${(err as Error)?.constructor?.name}: ${(err as Error)?.message}`);
        else if (!codes.includes(err.code)) wrong.push(`${name}: ${err.code} (${err.message})`);
      }
    }
    expect(wrong).toEqual([]);
    expect(h.store.lastSeq()).toBe(1);
    expect(await h.store.state('global')).toEqual({ a: 1 });
    expect(await h.raw(dump)).toEqual(before);
  });

  it('a huge transitions range is clamped to the log', async () => {
    const all = await collect(h.store.transitions({ from: 1, to: 2 ** 52 }));
    expect(all.map((t) => t.seq)).toEqual([1]);
    expect(await collect(h.store.transitions({ from: 2 ** 52 }))).toEqual([]);
  });

  it('meta is stored as a frozen copy', async () => {
    const meta = { by: { name: 'x' } };
    const r = await h.store.publish({ changes: { global: { a: 2 } }, meta });
    meta.by.name = 'changed';
    expect(r.transition?.meta).toEqual({ by: { name: 'x' } });
    expect(Object.isFrozen(r.transition?.meta?.by)).toBe(true);
    expect((await h.store.transition(2)).meta).toEqual({ by: { name: 'x' } });
  });
});

describe('bad options when opening', () => {
  it.each([
    ['null options', () => openMemoryStore(null as never)],
    ['a non-function clock', () => openMemoryStore({ clock: 'now' as never })],
    ['a fractional interval', () => openMemoryStore({ checkpointInterval: 1.5 })],
    ['a BigInt cache size', () => openMemoryStore({ cacheSize: 3n as never })],
  ])('%s → INPUT_INVALID', async (_, open) => {
    await expect(open()).rejects.toMatchObject({ code: 'INPUT_INVALID' });
  });

  it('a clock that returns no valid Date fails that publish with INPUT_INVALID and writes nothing', async () => {
    const store = await openMemoryStore({ clock: () => new Date(Number.NaN) });
    try {
      await expect(store.publish({ changes: { global: { a: 1 } } })).rejects.toMatchObject({ code: 'INPUT_INVALID', details: { field: 'clock' } });
      expect(store.lastSeq()).toBe(0);
    } finally {
      await store.close();
    }
  });
});
