/**
 * `stateflow shape` and `--shape` end to end through the BUILT bin on a LevelDB store in a temp
 * directory (store README "Shapes"): set (it prints the version it made, the streams it checked
 * and the heads it upgraded), list, show, check (exit 1 on a failure), a refused version (exit
 * 2, nothing written), and `read`/`diff`/`log`/`show` in the stored and the current shape.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, json, jsonError, jsonLines, removeDir, stateflow, tempDir } from './helpers.js';

let root: string;
beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await removeDir(root);
});

const V1 = { type: 'object', properties: { lazy: { type: 'object', properties: { plan: { type: 'string' } } } } };
const V2 = { type: 'object', properties: { lazy: { type: 'object', properties: { plans: { type: 'array', items: { type: 'string' } } }, required: ['plans'], additionalProperties: false } } };

describe('stateflow shape', () => {
  it('declares, lists, shows, checks and reads in a shape', async () => {
    const dir = path.join(root, 'store');
    const file = async (name: string, value: unknown): Promise<string> => {
      const at = path.join(root, name);
      await writeFile(at, JSON.stringify(value));
      return at;
    };
    const sf = (args: string[]) => stateflow(['--dir', dir, '--cwd', '/repo', ...args]);
    expectOk(await sf(['patch', JSON.stringify({ cwd: { lazy: { plan: 'draft' } } })]));
    expect(expectOk(await sf(['shape', 'set', 'memory', '--streams', 'cwd:*', '--schema', await file('v1.json', V1)])).stdout).toMatch(/^shape memory version 1: seq 2: stateflow:shapes rev 1\nchecked 1 stream; upgraded 0 heads\n$/);
    const refused = await sf(['--json', 'shape', 'set', 'memory', '--streams', 'cwd:*', '--schema', await file('v2.json', V2)]);
    expect(jsonError(refused, 2)).toMatchObject({ code: 'SHAPE_INVALID', details: { shape: 'memory', reason: 'heads' } });
    const upcast = await file('up2.json', [{ op: 'wrap', path: '/lazy/plan' }, { op: 'move', from: '/lazy/plan', path: '/lazy/plans' }]);
    const set = expectOk(await sf(['--json', 'shape', 'set', 'memory', '--streams', 'cwd:*', '--schema', path.join(root, 'v2.json'), '--upcast', upcast]));
    expect(json(set)).toMatchObject({ version: 2, checked: 1, failures: 0, upgraded: ['cwd:/repo'] });
    expect(expectOk(await sf(['shape', 'list'])).stdout).toMatch(/memory\s+cwd:\*\s+2/);
    expect(json(expectOk(await sf(['--json', 'shape', 'show', 'memory', '2'])))).toMatchObject({ name: 'memory', version: 2, schema: V2 });
    expect(json(expectOk(await sf(['--json', 'shape', 'check', 'memory', '--all'])))).toMatchObject({ version: 2, streams: 1, revisions: 2, failures: [] });
    expect(json(expectOk(await sf(['--json', 'read', 'cwd[1].lazy'])))).toEqual({ value: { plans: ['draft'] } });
    expect(json(expectOk(await sf(['--json', 'read', 'cwd[1].lazy', '--shape', 'stored'])))).toEqual({ value: { plan: 'draft' } });
    expect(json(expectOk(await sf(['--json', 'diff', 'cwd:/repo', '0', '1', '--shape', 'current'])))).toEqual({ lazy: { plans: ['draft'] } });
    expect(json(expectOk(await sf(['--json', 'diff', 'cwd:/repo', '0', '1'])))).toEqual({ lazy: { plan: 'draft' } });
    expect(json(expectOk(await sf(['--json', 'show', '1', '--shape', 'current'])))).toMatchObject({ changes: [{ stream: 'cwd:/repo', rev: 1, patch: { lazy: { plans: ['draft'] } } }] });
    const log = jsonLines(expectOk(await sf(['--json', 'log', '--stream', 'cwd:/repo', '--shape', 'current'])).stdout) as { changes: { patch: unknown }[] }[];
    expect(log.map((t) => t.changes[0]?.patch)).toEqual([{ lazy: { plans: ['draft'] } }, {}]);
    // A write in the old shape is refused, naming path and rule; nothing written.
    expect(jsonError(await sf(['--json', 'patch', JSON.stringify({ cwd: { lazy: { plan: 'x' } } })]), 2)).toMatchObject({ code: 'SHAPE_VIOLATION', details: { path: '/lazy', rule: 'additionalProperties' } });
    expect(jsonError(await sf(['--json', 'shape', 'show', 'nope']), 3).code).toBe('SHAPE_NOT_FOUND');
    expect((await sf(['read', 'lazy', '--shape', 'newest'])).code).toBe(2);
  });
});
