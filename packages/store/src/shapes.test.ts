import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import type { Harness } from './test-support/backends.js';
import { backends } from './test-support/backends.js';
import { checkShape, diffInShape, getShape, listShapes, registerUpcastFunction, setShape, stateAtShape, transitionsInShape, upgradeHeads, versionAt } from './shapes.js';
import { failureOf, rejectionOf } from '@stateflow/test-kit';
import { transitionHash } from './internal/hash.js';

const SHAPES = 'stateflow:shapes';
const S = 'session:a';

/** v1: a title; v2: the title renamed to name, tags a list; v3: a default status. */
const V1 = { type: 'object', properties: { title: { type: 'string' }, tags: { type: 'string' } }, required: ['title'] };
const V2 = { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'], additionalProperties: false };
const V3 = { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, status: { enum: ['open', 'done'] } }, required: ['name', 'status'], additionalProperties: false };
const UP2 = [{ op: 'move' as const, from: '/title', path: '/name' }, { op: 'wrap' as const, path: '/tags' }];
const UP3 = [{ op: 'default' as const, path: '/status', value: 'open' }];

describe.each(backends)('shapes on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.create({ checkpointInterval: 2 });
  });
  afterEach(async () => {
    await h.destroy();
  });

  /** A history of S written under v1 (revisions 1–3), then v2 and v3 declared. */
  async function historyUnderV1ThenV3(): Promise<void> {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    await h.store.publish({ changes: { [S]: { title: 'one', tags: 'x' } } });
    await h.store.publish({ changes: { [S]: { title: 'two' } } });
    await h.store.publish({ changes: { [S]: { tags: 'y' } } });
    await setShape(h.store, 'note', { streams: 'session:*', schema: V2, upcast: UP2 });
    await setShape(h.store, 'note', { streams: 'session:*', schema: V3, upcast: UP3 });
  }

  it('a history written under v1 reads as v3 at every revision; stored bytes and audit unchanged', async () => {
    await historyUnderV1ThenV3();
    const storedBefore = [await h.store.stateAt(S, 1), await h.store.stateAt(S, 2), await h.store.stateAt(S, 3)];
    expect(storedBefore).toEqual([{ title: 'one', tags: 'x' }, { title: 'two', tags: 'x' }, { title: 'two', tags: 'y' }]);
    expect(await stateAtShape(h.store, S, 1, 'current')).toEqual({ name: 'one', tags: ['x'], status: 'open' });
    expect(await stateAtShape(h.store, S, 3)).toEqual({ name: 'two', tags: ['y'], status: 'open' });
    expect(await stateAtShape(h.store, S, 3, 2)).toEqual({ name: 'two', tags: ['y'] });
    expect(await stateAtShape(h.store, S, 3, 'stored')).toEqual({ title: 'two', tags: 'y' });
    // The heads moved by one recorded transition per version: revision 4 (v2), 5 (v3).
    const head = await h.store.head(S);
    expect(head.rev).toBe(5);
    expect(await h.store.state(S)).toEqual({ name: 'two', tags: ['y'], status: 'open' });
    expect(await versionAt(h.store, S, 1)).toEqual({ name: 'note', version: 1 });
    expect(await versionAt(h.store, S, 5)).toEqual({ name: 'note', version: 3 });
    const upgrade = await h.store.transition(await h.store.revisionSeq(S, 4));
    expect(upgrade.meta).toEqual({ upgrade: { shape: 'note', from: 1, to: 2 }, shape: { [S]: { name: 'note', version: 2 } } });
    expect(await diffInShape(h.store, S, 1, 3)).toEqual({ name: 'two', tags: { '[0]': 'y' } });
    expect(await h.store.diff(S, 1, 3)).toEqual({ title: 'two', tags: 'y' });
    const shaped = [];
    for await (const t of transitionsInShape(h.store, { stream: S }, 'current')) shaped.push(t.changes.map((c) => c.patch));
    expect(shaped.slice(0, 3)).toEqual([[{ name: 'one', tags: ['x'], status: 'open' }], [{ name: 'two' }], [{ tags: { '[0]': 'y' } }]]);
    expect(shaped.slice(3)).toEqual([[{}], [{}]]);
    // The same reads through the store's own methods.
    expect(await h.store.stateAt(S, 1, { shape: 'current' })).toEqual({ name: 'one', tags: ['x'], status: 'open' });
    expect(await h.store.stateAt(S, 1, { shape: 2 })).toEqual({ name: 'one', tags: ['x'] });
    expect(await h.store.stateAt(S, 1, { shape: 'stored' })).toEqual({ title: 'one', tags: 'x' });
    expect(await h.store.diff(S, 1, 3, { shape: 'current' })).toEqual({ name: 'two', tags: { '[0]': 'y' } });
    const viaStore = [];
    for await (const t of h.store.transitions({ stream: S, shape: 'current' })) viaStore.push(t.changes[0]?.patch);
    expect(viaStore).toEqual(shaped.map(([p]) => p));
    expect((await failureOf(h.store.stateAt(S, 1, { shape: 'newest' as 'current' }))).details).toEqual({ field: 'shape' });
    expect(storedBefore).toEqual([await h.store.stateAt(S, 1), await h.store.stateAt(S, 2), await h.store.stateAt(S, 3)]);
    expect((await h.store.audit()).problems).toEqual([]);
    const reopened = await h.reopen();
    expect(await stateAtShape(reopened, S, 2)).toEqual({ name: 'two', tags: ['x'], status: 'open' });
  });

  it('every transition records its shape version; before any shape there is none (version 0), read as v1 unchanged', async () => {
    await h.store.publish({ changes: { [S]: { title: 'old' }, global: { g: 1 } } });
    expect((await h.store.transition(1)).meta).toBeUndefined();
    const { version, upgraded, checked } = await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    expect({ version, upgraded, streams: checked.streams }).toEqual({ version: 1, upgraded: [], streams: 1 });
    expect(await versionAt(h.store, S, 1)).toBeNull();
    // Version 1 keeps the state as it is, so the old head takes writes without an upgrade.
    const r = await h.store.publish({ changes: { [S]: { tags: 't' }, global: { g: 2 } } });
    expect(r.status === 'accepted' && r.transition.meta).toEqual({ shape: { [S]: { name: 'note', version: 1 } } });
    expect(await stateAtShape(h.store, S, 1)).toEqual({ title: 'old' });
    expect(await stateAtShape(h.store, 'global', 2, 'current')).toEqual({ g: 2 });
    expect((await failureOf(stateAtShape(h.store, 'global', 2, 1))).code).toBe('SHAPE_NOT_FOUND');
  });

  it('writes are checked against the current version: a typed error naming path and rule, nothing written', async () => {
    await historyUnderV1ThenV3();
    const seq = h.store.lastSeq();
    const err = await failureOf(h.store.publish({ changes: { [S]: { tags: ['ok', 7] } } }));
    expect(err.code).toBe('SHAPE_VIOLATION');
    expect(err.details).toEqual({ stream: S, shape: 'note', version: 3, path: '/tags/1', rule: 'type', schemaPath: '#/properties/tags/items/type' });
    expect((await failureOf(h.store.publish({ changes: { 'session:new': { name: 'n' } } }))).details).toMatchObject({ path: '', rule: 'required' });
    expect(h.store.lastSeq()).toBe(seq);
    // A stream created now is written in the current version.
    const created = await h.store.publish({ changes: { 'session:new': { name: 'n', status: 'done' } } });
    expect(created.status === 'accepted' && created.transition.meta).toEqual({ shape: { 'session:new': { name: 'note', version: 3 } } });
    expect((await failureOf(h.store.publish({ changes: { [S]: { name: 'x' } }, meta: { shape: {} } }))).details).toEqual({ field: 'meta.shape' });
  });

  it('a write that races an upgrade is refused until the head is upgraded (rule version), then accepted', async () => {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    await h.store.publish({ changes: { [S]: { title: 'one' } } });
    // Declare v2 by a plain publish (as a declarer that stopped before upgrading would leave it).
    const record = (await h.store.state(SHAPES)).note as JsonObject;
    await h.store.publish({ changes: { [SHAPES]: { note: { versions: [...(record.versions as JsonObject[]), { schema: V2, upcast: UP2 }] } } } });
    const err = await failureOf(h.store.publish({ changes: { [S]: { title: 'guess' } } }));
    expect(err.details).toMatchObject({ stream: S, version: 2, rule: 'version' });
    expect(await upgradeHeads(h.store, 'note')).toEqual([S]);
    expect(await upgradeHeads(h.store, 'note')).toEqual([]);
    expect((await h.store.publish({ changes: { [S]: { name: 'now' } } })).status).toBe('accepted');
  });

  it('declaring checks the heads first: refused unless forced, with how many streams were checked', async () => {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    await h.store.publish({ changes: { [S]: { title: 'one' } } });
    await h.store.publish({ changes: { 'session:b': { title: 'two' } } });
    const seq = h.store.lastSeq();
    // No upcast: title is not renamed, so v2's required name is missing in both heads.
    const err = await rejectionOf(setShape(h.store, 'note', { streams: 'session:*', schema: V2 }));
    expect(err.code).toBe('SHAPE_INVALID');
    expect(err.details).toEqual({ shape: 'note', reason: 'heads' });
    expect(err.message).toMatch(/2 of 2 stream heads/);
    expect(h.store.lastSeq()).toBe(seq);
    const report = await checkShape(h.store, 'note', { candidate: { streams: 'session:*', schema: V2, upcast: UP2 }, all: true });
    expect({ streams: report.streams, revisions: report.revisions, failures: report.failures.length }).toEqual({ streams: 2, revisions: 2, failures: 0 });
    const bad = await checkShape(h.store, 'note', { candidate: { streams: 'session:*', schema: V2 } });
    expect(bad.failures.map((f) => [f.stream, f.rev, f.error.code, f.error.details])).toEqual([
      ['session:a', 1, 'SHAPE_UPCAST_FAILED', { stream: 'session:a', rev: 1, shape: 'note', step: 2, op: '', reason: 'invalid-result' }],
      ['session:b', 1, 'SHAPE_UPCAST_FAILED', { stream: 'session:b', rev: 1, shape: 'note', step: 2, op: '', reason: 'invalid-result' }],
    ]);
    expect((await setShape(h.store, 'note', { streams: 'session:*', schema: V1 })).result.status).toBe('noop');
    expect((await listShapes(h.store)).map((s) => [s.name, s.streams, s.versions.length])).toEqual([['note', 'session:*', 1]]);
  });

  it('fails closed: a missing function step, or a version that is not declared, is a typed error naming stream, revision and step', async () => {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    await h.store.publish({ changes: { [S]: { title: 'one,two' } } });
    registerUpcastFunction('split-title', (v) => ({ ...(v as JsonObject), title: String((v as JsonObject).title).split(',')[0] as string }));
    try {
      await setShape(h.store, 'note', { streams: 'session:*', schema: V1, upcast: [{ op: 'call', fn: 'split-title' }] });
      expect(await h.store.state(S)).toEqual({ title: 'one' });
      expect(await stateAtShape(h.store, S, 1)).toEqual({ title: 'one' });
    } finally {
      registerUpcastFunction('split-title', undefined);
    }
    // A new reader (the memo of the one that had the function is its own) without the function.
    const reader = await h.reopen();
    const err = await rejectionOf(stateAtShape(reader, S, 1));
    expect(err.code).toBe('SHAPE_UPCAST_FAILED');
    expect(err.details).toEqual({ stream: S, rev: 1, shape: 'note', step: 2, op: '0', reason: 'missing-function' });
    expect(err.message).toMatch(/session:a@1/);
    expect(await stateAtShape(reader, S, 1, 'stored')).toEqual({ title: 'one,two' });
    expect((await failureOf(stateAtShape(reader, S, 1, 3))).details).toEqual({ shape: 'note', version: 3 });
    expect((await failureOf(stateAtShape(reader, S, 2, 1))).details).toMatchObject({ reason: 'missing-step', step: 1 });
    expect((await failureOf(getShape(reader, 'nope'))).code).toBe('SHAPE_NOT_FOUND');
  });

  it('after compaction every retained revision but the origin reads in a shape', async () => {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    for (let i = 1; i <= 10; i++) await h.store.publish({ changes: { [S]: { title: `t${i}` } } });
    await setShape(h.store, 'note', { streams: 'session:*', schema: V2, upcast: UP2 });
    const { origin } = await h.store.compact(S, { keepRevisions: 4 });
    expect(origin).toBe(8);
    expect((await failureOf(stateAtShape(h.store, S, origin))).code).toBe('HISTORY_NOT_RETAINED');
    expect(await stateAtShape(h.store, S, origin, 'stored')).toEqual({ title: 't8' });
    expect([await stateAtShape(h.store, S, 9), await stateAtShape(h.store, S, 10), await stateAtShape(h.store, S, 11)]).toEqual([{ name: 't9' }, { name: 't10' }, { name: 't10' }]);
  });

  it('the audit checks every recorded shape version exists', async () => {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    await h.store.publish({ changes: { [S]: { title: 'one' } } });
    expect((await h.store.audit()).problems).toEqual([]);
    // An imported transition carries its meta verbatim: one naming a version never declared.
    const last = await h.store.transition(2);
    const body = { seq: 3, time: last.time, meta: { shape: { 'session:b': { name: 'note', version: 7 } } }, changes: [{ stream: 'session:b', rev: 1, patch: { title: 'x' } }] };
    await h.store.append({ ...body, prevHash: last.hash, hash: transitionHash(last.hash, body) });
    expect((await h.store.audit()).problems).toEqual([
      { code: 'DECLARATION_INVALID', key: 'L/3', stream: 'session:b', detail: 'session:b is recorded in version 7 of shape note, which is not declared (it has 1 versions here)' },
    ]);
  });

  it('refuses ill-formed declarations on stateflow:shapes, writing nothing', async () => {
    await setShape(h.store, 'note', { streams: 'session:*', schema: V1 });
    const bad: [JsonObject, string][] = [
      [{ '9x': { streams: 'a', versions: [{ schema: {} }] } }, 'name'],
      [{ n: { streams: 'a', versions: [] } }, 'record'],
      [{ n: { streams: '**', versions: [{ schema: {} }] } }, 'streams'],
      [{ n: { streams: 'a', versions: [{ schema: { type: 'object', frobnicate: 1 } }] } }, 'schema'],
      [{ n: { streams: 'a', versions: [{ schema: {}, upcast: [{ op: 'rename' }] }] } }, 'upcast'],
      [{ note: { streams: 'cwd:*' } }, 'streams'],
      [{ note: { versions: [{ schema: V2 }] } }, 'history'],
      [{ note: null }, 'history'],
    ];
    const seq = h.store.lastSeq();
    for (const [patch, reason] of bad) {
      const err = await failureOf(h.store.publish({ changes: { [SHAPES]: patch } }));
      expect([err.code, (err.details as { reason: string }).reason], JSON.stringify(patch)).toEqual(['SHAPE_INVALID', reason]);
    }
    expect(h.store.lastSeq()).toBe(seq);
  });
});
