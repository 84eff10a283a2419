/**
 * One test per bullet of the seed's "Validation contract" (VC1–VC16), on memory-level and on
 * classic-level in a temp directory.
 */
import { describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openStore } from '@stateflow/store-leveldb';
import type { Store } from '@stateflow/store';
import { createRuntime } from './runtime.js';
import { ALL_OWNERS, backends, dump, runtimePerTest } from '../test-support/stores.js';
import { rejectionOf, removeDir, tempDir } from '@stateflow/test-kit';


describe.each(backends)('validation contract ($name)', (backend) => {
  const ctx = runtimePerTest(backend);

  it('VC1: lazy bodies do not enter ordinary baseline effective state', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { next: 'ship' }, lazy: { memory: ['LAZY-BODY-1'] } } } });
    await ctx.rt.patchState({ patch: { session: { lazy: { notes: { deep: 'LAZY-BODY-2' } } } } });
    const baseline = await ctx.rt.baseline();
    const text = JSON.stringify(baseline);
    expect(text).not.toContain('LAZY-BODY');
    expect(baseline.state).toEqual({ tactics: { next: 'ship' } });
    expect(baseline.transitions).toEqual([{ seq: 1, selectors: { cwd: 'cwd[1]' }, patch: { cwd: { tactics: { next: 'ship' } } } }]);
    expect(baseline.lazy_navigation).toEqual({ available: true, path: 'effective.lazy', keys: { memory: 'array', notes: 'object' } });
  });

  it('VC2: baseline lazy navigation remains bounded as lazy body size grows', async () => {
    const sizes: number[] = [];
    for (const n of [10, 1_000, 20_000]) {
      await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: Array.from({ length: n }, (_, i) => `thought ${i}`) } } } });
      sizes.push(JSON.stringify((await ctx.rt.baseline()).lazy_navigation).length);
    }
    expect(new Set(sizes).size).toBe(1);
    const many: Record<string, number> = {};
    for (let i = 0; i < 33; i++) many[`k${i}`] = i;
    await ctx.rt.patchState({ patch: { cwd: { lazy: many } } });
    expect((await ctx.rt.baseline()).lazy_navigation).toEqual({ available: true, path: 'effective.lazy' });
  });

  it('VC3: single and ordered multi-path reads preserve exact request order and one captured state view', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { a: 'A', b: 'B' } }, session: { tactics: { c: 'C' } } } });
    expect(await ctx.rt.readState({ path: 'cwd.tactics.a' })).toEqual({ value: 'A' });
    expect(await ctx.rt.readState({ paths: ['session.tactics.c', 'cwd.tactics.a', 'cwd.tactics.b', 'cwd.tactics.a'] })).toEqual({
      value: ['C', 'A', 'B', 'A'],
    });
    // one captured view: the batch captures heads once, even with historical members
    let views = 0;
    const counting = new Proxy(ctx.ts.store, {
      get(target, prop, receiver) {
        if (prop === 'view') views++;
        const member = Reflect.get(target, prop, receiver) as unknown;
        return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(target) : member;
      },
    });
    const counted = createRuntime({ store: counting, selection: ALL_OWNERS });
    await counted.readState({ paths: ['cwd.tactics', 'cwd[1].tactics', 'effective[1].tactics', 'effective.tactics'] });
    expect(views).toBe(1);
    // a concurrent transition is seen by all members of a batch or by none
    const [batch] = await Promise.all([
      ctx.rt.readState({ paths: ['cwd.tactics.a', 'session.tactics.c'] }),
      ctx.rt.patchState({ patch: { cwd: { tactics: { a: 'A2' } }, session: { tactics: { c: 'C2' } } } }),
    ]);
    expect([{ value: ['A', 'C'] }, { value: ['A2', 'C2'] }]).toContainEqual(batch);
  });

  it('VC4: a failing path produces no partial batch result', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { a: 'A' } } } });
    const err = await rejectionOf(ctx.rt.readState({ paths: ['cwd.tactics.a', 'cwd.tactics.missing', 'cwd.tactics'] }), 'PATH_NOT_FOUND');
    expect(err.details).toMatchObject({ path: 'cwd.tactics.missing' });
    await rejectionOf(ctx.rt.readState({ paths: ['cwd.tactics.a', 'cwd..x'] }), 'PATH_SYNTAX');
  });

  it('VC5: every projection returns exactly its matching top-level key', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { rules: { r: 'x' } } } } });
    expect(Object.keys(await ctx.rt.readState({ path: 'cwd.lazy.rules' }))).toEqual(['value']);
    expect(Object.keys(await ctx.rt.readState({ path: 'cwd.lazy.rules', projection: 'keys' }))).toEqual(['meta', 'keys']);
    expect(Object.keys(await ctx.rt.readState({ path: 'cwd.lazy.rules', projection: 'patch' }))).toEqual(['patch']);
    expect(Object.keys(await ctx.rt.readState({ paths: ['cwd.lazy'], projection: 'value' }))).toEqual(['value']);
    expect(Object.keys(await ctx.rt.readState({ paths: ['cwd.lazy'], projection: 'keys' }))).toEqual(['meta', 'keys']);
    expect(Object.keys(await ctx.rt.readState({ paths: ['cwd.lazy'], projection: 'patch' }))).toEqual(['patch']);
  });

  it('VC6: value returns complete selected values and exact valid ranges without pagination or truncation', async () => {
    const memory = Array.from({ length: 10_000 }, (_, i) => `thought ${i}`);
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory, ten: memory.slice(0, 10) } } } });
    const whole = (await ctx.rt.readState({ path: 'cwd.lazy.memory' })) as { value: string[] };
    expect(whole.value).toEqual(memory);
    expect(await ctx.rt.readState({ path: 'cwd.lazy.memory[0..3]' })).toEqual({ value: ['thought 0', 'thought 1', 'thought 2'] });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.memory[0:3]' })).toEqual({ value: ['thought 0', 'thought 1', 'thought 2'] });
    expect(await ctx.rt.readState({ paths: ['cwd.lazy.ten[0:10]', 'cwd.lazy.ten[10:10]', 'cwd.lazy.ten[9]'] })).toEqual({
      value: [memory.slice(0, 10), [], 'thought 9'],
    });
  });

  it('VC7: out-of-bounds indices and ranges fail, including batch and boundary cases', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { ten: Array.from({ length: 10 }, (_, i) => i) } } } });
    await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.ten[0:15]' }), 'INDEX_OUT_OF_RANGE');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.ten[11:11]' }), 'INDEX_OUT_OF_RANGE');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.ten[10]' }), 'INDEX_OUT_OF_RANGE');
    await rejectionOf(ctx.rt.readState({ paths: ['cwd.lazy.ten[0:10]', 'cwd.lazy.ten[10]'] }), 'INDEX_OUT_OF_RANGE');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.ten[10]', projection: 'keys' }), 'INDEX_OUT_OF_RANGE');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.ten[-1]' }), 'PATH_SYNTAX');
  });

  it('VC8: keys returns closed meta followed by the complete immediate named keys, no descendants, no index enumeration', async () => {
    const rules: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) rules[`r${i}`] = { deep: { secret: 'DESCENDANT' } };
    await ctx.rt.patchState({ patch: { cwd: { lazy: { rules, memory: ['a', 'b'], soul: 'x'.repeat(50), n: 4 } } } });
    const keys = (await ctx.rt.readState({ path: 'cwd.lazy.rules', projection: 'keys' })) as { meta: unknown; keys: Record<string, string> };
    expect(keys.meta).toEqual({ type: 'object', size: 40 });
    expect(Object.keys(keys.keys)).toHaveLength(40);
    expect(JSON.stringify(keys)).not.toContain('DESCENDANT');
    expect(await ctx.rt.readState({ paths: ['cwd.lazy.memory', 'cwd.lazy.soul', 'cwd.lazy.n', 'cwd.lazy'], projection: 'keys' })).toEqual({
      meta: [{ type: 'array', length: 2 }, { type: 'string', length: 50 }, { type: 'number' }, { type: 'object', size: 4 }],
      keys: [[], [], [], { rules: 'object', memory: 'array', soul: 'string', n: 'number' }],
    });
  });

  it('VC9: read-level meta cannot leak meta.json, revision, temporal, publication, provenance, cache or diagnostic fields', async () => {
    await ctx.ts.store.publish({ changes: { 'cwd:/repo': { lazy: { a: { b: 1 } } } }, meta: { provenance: 'LEAK' } });
    for (const path of ['cwd', 'cwd.lazy', 'cwd.lazy.a', 'cwd[1].lazy', 'effective', 'effective[1].lazy.a.b']) {
      const result = (await ctx.rt.readState({ path, projection: 'keys' })) as unknown as { meta: Record<string, unknown> };
      expect(Object.keys(result.meta).every((k) => ['type', 'size', 'length'].includes(k))).toBe(true);
      expect(JSON.stringify(result)).not.toMatch(/LEAK|rev|seq|origin|time|hash/);
    }
  });

  it('VC10: patch selects the same causal boundary as historical reads and distinguishes no change {} from deletion null', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: ['a', 'b'], plan: 'p' }, tactics: { t: 1 } } } });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: { '[1]': 'B' }, plan: null } } } });
    await ctx.rt.patchState({ patch: { session: { tactics: { s: 1 } } } });
    expect(await ctx.rt.readState({ path: 'cwd[2].lazy.memory', projection: 'patch' })).toEqual({ patch: { '[1]': 'B' } });
    expect(await ctx.rt.readState({ paths: ['cwd[1].lazy.memory', 'cwd[2].lazy.memory'] })).toEqual({ value: [['a', 'b'], ['a', 'B']] });
    expect(await ctx.rt.readState({ path: 'cwd[2].lazy.plan', projection: 'patch' })).toEqual({ patch: null });
    expect(await ctx.rt.readState({ path: 'cwd[2].tactics', projection: 'patch' })).toEqual({ patch: {} });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.plan', projection: 'patch' })).toEqual({ patch: null });
    // effective[N] is the effective change of global transition N
    expect(await ctx.rt.readState({ paths: ['effective[2].lazy.memory', 'effective[3].lazy', 'effective[3].tactics'], projection: 'patch' })).toEqual({
      patch: [{ '[1]': 'B' }, {}, { s: 1 }],
    });
    expect(await ctx.rt.readState({ path: 'effective.tactics', projection: 'patch' })).toEqual({ patch: { s: 1 } });
  });

  it('VC11: effective.lazy follows global → cwd → session overlay while explicit scope paths preserve ownership', async () => {
    await ctx.rt.patchState({
      patch: {
        global: { lazy: { a: 'global', b: { x: 1 }, g: true } },
        cwd: { lazy: { b: { y: 2 } } },
        session: { lazy: { a: 'session' } },
      },
    });
    expect(await ctx.rt.readState({ path: 'effective.lazy' })).toEqual({ value: { a: 'session', b: { x: 1, y: 2 }, g: true } });
    expect(await ctx.rt.readState({ paths: ['global.lazy', 'cwd.lazy', 'session.lazy'] })).toEqual({
      value: [{ a: 'global', b: { x: 1 }, g: true }, { b: { y: 2 } }, { a: 'session' }],
    });
    await ctx.rt.patchState({ patch: { session: { lazy: { a: null } } } });
    expect(await ctx.rt.readState({ path: 'effective.lazy.a' })).toEqual({ value: 'global' });
    const onlyCwd = createRuntime({ store: ctx.ts.store, selection: { cwd: '/repo', mode: 'active' } });
    await rejectionOf(onlyCwd.readState({ path: 'session.lazy' }), 'OWNER_NOT_SELECTED');
    expect(await onlyCwd.readState({ path: 'effective.lazy' })).toEqual({ value: { b: { y: 2 } } });
  });

  it('VC12: reads create no semantic transition, publication, freshness update or future activation', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { a: 1 }, lazy: { deep: { body: 'LAZY' } } } } });
    const before = await dump(ctx.ts.store);
    const baselineBefore = await ctx.rt.baseline();
    await ctx.rt.readState({ paths: ['cwd.lazy.deep', 'effective.lazy', 'cwd[1]'] });
    await ctx.rt.readState({ path: 'effective.lazy', projection: 'keys' });
    await ctx.rt.readState({ path: 'cwd.lazy.deep', projection: 'patch' });
    await ctx.rt.readState({ path: 'cwd.lazy.nope' }).catch(() => undefined);
    expect(await dump(ctx.ts.store)).toEqual(before);
    expect(await ctx.rt.baseline()).toEqual(baselineBefore);
  });

  it('VC13: whole-array replacement and indexed scalar, array, object, nested, multi-index and stale-basis patches remain atomic', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: ['a', 'b', 'c'], groups: [{ notes: ['n0', 'n1'] }, 'x'] } } } });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: { '[0]': 'A', '[2]': ['c1', 'c2'] }, groups: { '[0]': { notes: { '[1]': 'N1' }, tag: 't' } } } } } });
    expect(await ctx.rt.readState({ path: 'cwd.lazy' })).toEqual({
      value: { memory: ['A', 'b', ['c1', 'c2']], groups: [{ notes: ['n0', 'N1'], tag: 't' }, 'x'] },
    });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: ['fresh'] } } } });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.memory' })).toEqual({ value: ['fresh'] });
    // one invalid index fails the whole multi-scope call
    const before = await dump(ctx.ts.store);
    await rejectionOf(ctx.rt.patchState({ patch: { session: { tactics: { ok: 1 } }, cwd: { lazy: { memory: { '[0]': 'x', '[1]': 'y' } } } } }), 'PATCH_INVALID');
    expect(await dump(ctx.ts.store)).toEqual(before);
    // stale basis: a writer shrinks the array between capture and publication → re-validated, rejected
    let interfered = false;
    const racing = new Proxy(ctx.ts.store, {
      get(target, prop, receiver) {
        if (prop === 'publish' && !interfered) {
          return async (input: Parameters<Store['publish']>[0]) => {
            interfered = true;
            await target.publish({ changes: { 'cwd:/repo': { lazy: { groups: ['only'] } } } });
            return target.publish(input);
          };
        }
        const member = Reflect.get(target, prop, receiver) as unknown;
        return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(target) : member;
      },
    });
    const stale = createRuntime({ store: racing, selection: ALL_OWNERS });
    const seq = ctx.ts.store.lastSeq();
    await rejectionOf(stale.patchState({ patch: { cwd: { lazy: { groups: { '[1]': 'y' } } } } }), 'PATCH_INVALID');
    expect(ctx.ts.store.lastSeq()).toBe(seq + 1);
    expect(await ctx.rt.readState({ path: 'cwd.lazy.groups' })).toEqual({ value: ['only'] });
  });

  it('VC14: reload/resume/fork attach current lazy state with the owning scope; historical reads select the same boundary as other planes', async () => {
    await ctx.rt.patchState({ patch: { session: { tactics: { t: 1 }, lazy: { plan: { v: 1 } } } } });
    await ctx.rt.patchState({ patch: { session: { tactics: { t: 2 }, lazy: { plan: { v: 2 } } } } });
    expect(await ctx.rt.readState({ paths: ['session[1].lazy.plan.v', 'session[1].tactics.t'] })).toEqual({ value: [1, 1] });
    if (ctx.ts.dir !== null) {
      const reopened = await ctx.ts.reopen();
      const resumed = createRuntime({ store: reopened, selection: ALL_OWNERS });
      expect(await resumed.readState({ paths: ['session.lazy.plan', 'session[1].lazy.plan', 'session.tactics.t'] })).toEqual({
        value: [{ v: 2 }, { v: 1 }, 2],
      });
    }
    await ctx.ts.store.fork('session:s1', 'session:s2');
    const forked = createRuntime({ store: ctx.ts.store, selection: { session: 's2', mode: 'active' } });
    expect(await forked.readState({ paths: ['lazy.plan', 'tactics.t'] })).toEqual({ value: [{ v: 2 }, 2] });
  });

  it('VC15: malformed canonical lazy data fails closed without rewriting the store; rejected queries and patches preserve accepted hot state', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { keep: 1 }, lazy: { plan: 'p' } }, session: { tactics: { s: 1 } } } });
    const before = await dump(ctx.ts.store);
    await rejectionOf(ctx.rt.patchState({ patch: { cwd: { lazy: 'not an object' } } }), 'PATCH_INVALID');
    await rejectionOf(ctx.rt.patchState({ patch: { cwd: { lazy: ['x'] } } }), 'PATCH_INVALID');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.plan.deeper' }), 'PATH_KIND');
    expect(await dump(ctx.ts.store)).toEqual(before);
    if (ctx.ts.dir === null) return;
    // corrupt the canonical records on disk: a non-object lazy root with a valid hash and seal
    await ctx.ts.store.close();
    const db = new ClassicLevel<Buffer, Buffer>(ctx.ts.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    // The transition record (store format 5: 0xc1 ‖ prevHash ‖ hash ‖ JSON text of the body ‖
    // sha256(key ‖ all before)) holds the one copy of the patch: forge it with a valid hash and seal.
    const logKey = Buffer.concat([Buffer.from([0x4c]), Buffer.from([0, 0, 0, 0, 0, 0, 0, 1])]);
    const stored = (await db.get(logKey)) as Buffer;
    const prevHash = stored.toString('hex', 1, 33);
    const body = JSON.parse(stored.subarray(65, stored.length - 32).toString('utf8')) as { changes: { stream: string; patch: Record<string, unknown> }[] };
    for (const change of body.changes) if (change.stream === 'cwd:/repo') change.patch.lazy = 'broken';
    const hash = createHash('sha256').update(prevHash).update(canonicalize(body) as string).digest();
    const forged = Buffer.concat([Buffer.from([0xc1]), Buffer.from(prevHash, 'hex'), hash, Buffer.from(JSON.stringify(body), 'utf8')]);
    await db.put(logKey, Buffer.concat([forged, createHash('sha256').update(logKey).update(forged).digest()]));
    const bytes = async (): Promise<string[]> => {
      const out: string[] = [];
      for await (const [k, v] of db.iterator()) out.push(`${k.toString('hex')}=${v.toString('hex')}`);
      return out;
    };
    const corrupted = await bytes();
    await db.close();
    const store = await openStore(ctx.ts.dir);
    ctx.ts.store = store;
    const reader = createRuntime({ store, selection: ALL_OWNERS });
    await rejectionOf(reader.readState({ path: 'cwd.tactics.keep' }), 'STORE_CORRUPT');
    await rejectionOf(reader.patchState({ patch: { cwd: { tactics: { x: 1 } } } }), 'STORE_CORRUPT');
    const sessionOnly = createRuntime({ store, selection: { session: 's1', mode: 'active' } });
    expect(await sessionOnly.readState({ path: 'tactics.s' })).toEqual({ value: 1 });
    await store.close();
    const again = new ClassicLevel<Buffer, Buffer>(ctx.ts.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const after: string[] = [];
    for await (const [k, v] of again.iterator()) after.push(`${k.toString('hex')}=${v.toString('hex')}`);
    await again.close();
    expect(after).toEqual(corrupted);
    ctx.ts.store = await openStore(ctx.ts.dir);
  });

  it('VC16: unsupported store formats and read_state inputs fail actionably without rewriting retained bytes', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { a: 1 } } } });
    const before = await dump(ctx.ts.store);
    const offset = await rejectionOf(ctx.rt.readState({ path: 'cwd.tactics', offset: 1 }), 'INPUT_INVALID');
    expect(offset.message).toContain('cwd[1]');
    await rejectionOf(ctx.rt.readState({ path: 'tactics', scope: 'cwd' }), 'INPUT_INVALID');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.tactics', paths: ['cwd'] }), 'INPUT_INVALID');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.tactics', projection: 'diff' }), 'INPUT_INVALID');
    await rejectionOf(ctx.rt.readState({ path: 'cwd.*' }), 'PATH_SYNTAX');
    expect(await dump(ctx.ts.store)).toEqual(before);
    const foreign = await tempDir('foreign');
    try {
      await writeFile(path.join(foreign, 'not-a-store.txt'), 'hello');
      const db = new ClassicLevel(path.join(foreign, 'db'));
      await db.put('other', 'data');
      await db.close();
      await rejectionOf(openStore(path.join(foreign, 'db')), 'STORE_VERSION');
    } finally {
      await removeDir(foreign);
    }
  });
});
