import { beforeAll, describe, expect, it } from 'vitest';
import { loadLadder } from './load-ladder.js';
import type { Ladder } from './load-ladder.js';
import { readSlate, renderValue } from './slate-read.js';
import { createSlateState } from './slate-state.js';
import type { TokenCounter } from './token-counter.js';
import { loadTokenCounter } from './token-counter.js';

let ladder: Ladder;
let count: TokenCounter;
const T = '2026-01-01T00:00:00.000Z';
beforeAll(async () => {
  ladder = loadLadder({
    name: 'r',
    slates: [{
      title: 'S',
      folders: [{
        name: 'top', tokenLimit: 100, metatags: [{ name: 'tags', type: 'string[]' }],
        files: [{ name: 'b.md', init: 'héllo' }, { name: 'a.md' }],
        subfolders: [{ name: 'mid', tokenLimit: 100, files: [{ name: 'm.md' }], subfolders: [{ name: 'deep', tokenLimit: 100, files: [{ name: 'd.md' }] }] }],
      }],
    }],
    steps: [{ id: 'x' }],
  });
  count = await loadTokenCounter();
});

const state = () => structuredClone(createSlateState(ladder, new Date(T)));
const read = (ref: object) => readSlate(ladder.catalog, state(), { slate: 'S', folder: 'top', ...ref }, count);

describe('readSlate', () => {
  it('tree depth: unbounded by default, cut-off subfolders show by name', () => {
    expect(read({ metatag: 'tree' })).toEqual({
      folder: 'top', files: ['a.md', 'b.md'],
      subfolders: [{ folder: 'mid', files: ['m.md'], subfolders: [{ folder: 'deep', files: ['d.md'], subfolders: [] }] }],
    });
    expect(read({ metatag: 'tree', depth: 0 })).toEqual({ folder: 'top', files: ['a.md', 'b.md'], subfolders: [{ folder: 'mid' }] });
    expect(read({ metatag: 'tree', depth: 1 })).toEqual({
      folder: 'top', files: ['a.md', 'b.md'], subfolders: [{ folder: 'mid', files: ['m.md'], subfolders: [{ folder: 'deep' }] }],
    });
  });

  it('system metatags across a folder and on a file; size is UTF-8 bytes', () => {
    expect(read({ metatag: 'size' })).toEqual([{ file: 'a.md', value: 0 }, { file: 'b.md', value: 6 }]);
    expect(read({ file: 'b.md', metatag: 'created' })).toBe(T);
    expect(read({ metatag: 'tags' })).toEqual([]);
    expect(renderValue(read({ metatag: 'tags' }))).toBe('[]');
    expect(read({ file: 'a.md', metatag: 'tags' })).toBeNull();
    expect(renderValue(read({ file: 'a.md', metatag: 'tags' }))).toBe('');
    expect(readSlate(ladder.catalog, state(), { slate: 'S', folder: 'top/mid/deep', file: 'd.md' }, count)).toBe('');
  });
});
