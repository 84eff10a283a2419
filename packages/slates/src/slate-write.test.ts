import { beforeAll, describe, expect, it } from 'vitest';
import { loadLadder } from './load-ladder.js';
import type { Ladder } from './load-ladder.js';
import { createSlateState, fileContents } from './slate-state.js';
import type { SlateStreamState } from './slate-state.js';
import { applyWrite, mergeByKey } from './slate-write.js';
import type { WriteContext, WriteRequest } from './slate-write.js';
import { loadTokenCounter } from './token-counter.js';

let ladder: Ladder;
let ctx: WriteContext;
beforeAll(async () => {
  ladder = loadLadder({
    name: 'w',
    slates: [
      {
        title: 'S',
        folders: [
          {
            name: 'f',
            tokenLimit: 1000,
            metatags: [
              { name: 'summary', type: 'string' },
              { name: 'tags', type: 'string[]' },
              { name: 'scores', type: 'number[]' },
              { name: 'score', type: 'number' },
              { name: 'ok', type: 'boolean' },
              { name: 'log', type: 'json' },
            ],
            files: [{ name: 'a.md', init: 'seed line' }, { name: 'reg.md', init: [{ id: 'a', v: 1 }] }],
          },
        ],
      },
    ],
    steps: [{ id: 'x' }],
  });
  ctx = { catalog: ladder.catalog, count: await loadTokenCounter(), at: '2026-01-01T00:00:00.000Z' };
});

const fresh = (): SlateStreamState => structuredClone(createSlateState(ladder, new Date('2026-01-01T00:00:00.000Z')));
const req = (over: Partial<WriteRequest> & { value: WriteRequest['value'] }): WriteRequest => ({
  to: { slate: 'S', folder: 'f', file: 'a.md' },
  on: 'append',
  step: 'x',
  node: 0,
  ...over,
});
const tag = (metatag: string, on: WriteRequest['on'], value: WriteRequest['value']) =>
  req({ to: { slate: 'S', folder: 'f', file: 'a.md', metatag }, on, value });
const meta = (s: SlateStreamState) => s.slates.S?.folders.f?.files['a.md']?.metatags;

describe('applyWrite', () => {
  it('init: literal text, JSON literals as compact JSON, created/modified set', () => {
    const s = fresh();
    expect(fileContents(s.slates.S?.folders.f?.files['a.md'])).toBe('seed line');
    expect(fileContents(s.slates.S?.folders.f?.files['reg.md'])).toBe('[{"id":"a","v":1}]');
    expect(s.slates.S?.folders.f?.files['a.md']?.created).toBe('2026-01-01T00:00:00.000Z');
  });

  it('text append joins with a blank line; JSON values are written as compact JSON; empty append is a no-op', () => {
    const s = fresh();
    expect(applyWrite(ctx, s, req({ value: 'second' })).status).toBe('written');
    expect(applyWrite(ctx, s, req({ value: { k: [1, 2] } })).status).toBe('written');
    expect(applyWrite(ctx, s, req({ value: '' }))).toEqual({ status: 'noop' });
    expect(fileContents(s.slates.S?.folders.f?.files['a.md'])).toBe('seed line\n\nsecond\n\n{"k":[1,2]}');
  });

  it('mergeByKey on file contents; non-array contents are refused', () => {
    const s = fresh();
    applyWrite(ctx, s, req({ to: { slate: 'S', folder: 'f', file: 'reg.md' }, on: 'mergeByKey', key: 'id', value: [{ id: 'a', v: 2 }, { id: 'b' }] }));
    expect(fileContents(s.slates.S?.folders.f?.files['reg.md'])).toBe('[{"id":"a","v":2},{"id":"b"}]');
    const refused = applyWrite(ctx, s, req({ on: 'mergeByKey', key: 'id', value: [{ id: 'z' }] }));
    expect(refused).toMatchObject({ status: 'refused', refused: { reason: 'mergeByKey needs the contents of "a.md" to be a JSON array' } });
  });

  it('values that are not JSON by core snapshotJson are refused; so are mergeByKey contents holding 1e999', () => {
    const s = fresh();
    expect(applyWrite(ctx, s, req({ value: { x: Number.NaN } }))).toMatchObject({
      status: 'refused',
      refused: { reason: 'the value is not JSON at "/x": NaN is not a JSON number' },
    });
    expect(applyWrite(ctx, s, req({ to: { slate: 'S', folder: 'f', file: 'a.md', metatag: 'log' }, value: ['\ud800'] }))).toMatchObject({
      status: 'refused',
      refused: { metatag: 'log', reason: 'the value is not JSON at "/0": a string with a lone surrogate is not valid Unicode text' },
    });
    expect(applyWrite(ctx, s, req({ to: { slate: 'S', folder: 'f', file: 'n.md' }, on: 'overwrite', value: '[{"id":"a","n":1e999}]' })).status).toBe('written');
    expect(applyWrite(ctx, s, req({ to: { slate: 'S', folder: 'f', file: 'n.md' }, on: 'mergeByKey', key: 'id', value: [{ id: 'b' }] }))).toMatchObject({
      status: 'refused',
      refused: { reason: 'mergeByKey needs the contents of "n.md" to be a JSON array' },
    });
    expect(fileContents(s.slates.S?.folders.f?.files['a.md'])).toBe('seed line');
  });

  it('mergeByKey keeps order, replaces by key (deep-equal keys), appends new and keyless items', () => {
    expect(mergeByKey([{ id: 'a' }, { id: 'b', n: 1 }], [{ id: 'b', n: 2 }, { id: 'c' }, { x: 1 }], 'id')).toEqual([
      { id: 'a' }, { id: 'b', n: 2 }, { id: 'c' }, { x: 1 },
    ]);
    expect(mergeByKey([{ id: 1 }], [{ id: 1.0, y: true }], 'id')).toEqual([{ id: 1, y: true }]);
  });

  it('metatags: typed append semantics', () => {
    const s = fresh();
    applyWrite(ctx, s, tag('summary', 'append', 'one'));
    applyWrite(ctx, s, tag('summary', 'append', 'two'));
    applyWrite(ctx, s, tag('tags', 'append', 'a'));
    applyWrite(ctx, s, tag('tags', 'append', ['b', 'c']));
    applyWrite(ctx, s, tag('scores', 'append', [1, '2']));
    applyWrite(ctx, s, tag('score', 'append', '4'));
    applyWrite(ctx, s, tag('score', 'append', 5));
    applyWrite(ctx, s, tag('ok', 'overwrite', 'true'));
    applyWrite(ctx, s, tag('log', 'append', 'scalar'));
    applyWrite(ctx, s, tag('log', 'append', { e: 1 }));
    applyWrite(ctx, s, tag('log', 'append', ['x', 'y']));
    expect(meta(s)).toEqual({
      summary: 'one\n\ntwo',
      tags: ['a', 'b', 'c'],
      scores: [1, 2],
      score: 5,
      ok: true,
      log: ['scalar', { e: 1 }, 'x', 'y'],
    });
  });

  it('metatags: mergeByKey on json, overwrite replaces, type mismatches and nulls are refused', () => {
    const s = fresh();
    applyWrite(ctx, s, tag('log', 'mergeByKey', [{ id: 1, v: 'a' }]));
    applyWrite(ctx, s, req({ to: { slate: 'S', folder: 'f', file: 'a.md', metatag: 'log' }, on: 'mergeByKey', key: 'id', value: [{ id: 1, v: 'b' }, { id: 2 }] }));
    expect(meta(s)?.log).toEqual([{ id: 1, v: 'b' }, { id: 2 }]);
    applyWrite(ctx, s, tag('log', 'overwrite', 7));
    expect(meta(s)?.log).toBe(7);
    expect(applyWrite(ctx, s, tag('score', 'overwrite', 'many'))).toMatchObject({
      status: 'refused',
      refused: { metatag: 'score', reason: 'metatag type number does not accept "many"' },
    });
    expect(applyWrite(ctx, s, tag('log', 'overwrite', { a: null }))).toMatchObject({
      status: 'refused',
      refused: { reason: 'the value contains null, which slates never store' },
    });
  });
});
