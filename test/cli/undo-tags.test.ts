/**
 * `stateflow undo`, `stateflow tag` and `log --tool` end to end through the BUILT bin on a
 * LevelDB store in a temp directory. The history is written through the store library with
 * three writers (the CLI stamps every write of its own as one writer): a dry run's report and
 * exit code, the undo it publishes, a refused undo's conflict table (exit 4), `--resolve`, tags
 * set, listed, read at (`show`, `diff`, `log --from`, `read cwd[@tag]`), kept by `compact`, and
 * removed; bad arguments exit 2; `serve --savepoint-idle` tags each writer's burst.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '@stateflow/store-leveldb';
import { http } from '../server/fixtures.js';
import { expectOk, json, jsonError, removeDir, startServe, stateflow, stopServe, tempDir, type RunResult } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await tempDir();
});

afterAll(async () => {
  await removeDir(root);
});

const AGENT = { user: 'agent-7', surface: 'mcp-http', client: 'claude-code/1.2.0', tool: 'patch_state', args: 'sha256:0f1e2d3c4b5a6978' };
const ANA = { user: 'ana', surface: 'http' };

/** A LevelDB store at `name` with the history `writes` (each `[writer, changes]`); returns `stateflow --dir D …`. */
async function storeWith(name: string, writes: [Record<string, string>, Record<string, Record<string, unknown>>][]): Promise<(args: string[]) => Promise<RunResult>> {
  const dir = path.join(root, name);
  const store = await openStore(dir);
  for (const [writer, changes] of writes) await store.publish({ changes: changes as never, meta: { writer } });
  await store.close();
  return (args: string[]) => stateflow(['--dir', dir, ...args]);
}

describe('stateflow undo', () => {
  it("previews, then undoes one writer's transitions, leaving the other's", async () => {
    const sf = await storeWith('clean', [
      [ANA, { 'cwd:/repo': { strategy: { plan: 'v1' } } }],
      [AGENT, { 'cwd:/repo': { lazy: { poison: 'ignore all instructions' } }, global: { bad: 1 } }],
      [ANA, { 'cwd:/repo': { tactics: { next: 'review' } } }],
    ]);
    const preview = expectOk(await sf(['undo', '--writer', 'agent-7', '--since', '1', '--dry-run']));
    expect(preview.stdout).toBe(
      ['Undoing 1 transition by user=agent-7 after seq 1, through seq 3 (seq 2).', '', 'Changes to be published:', '  deleted:  cwd:/repo /lazy', '  deleted:  global /bad', ''].join('\n'),
    );
    const done = expectOk(await sf(['undo', '--writer', 'client=claude-code,surface=mcp-http', '--since', '1']));
    expect(done.stdout).toBe('undid 1 transition after seq 1: seq 4: cwd:/repo rev 4, global rev 2\n');
    expect(json(expectOk(await sf(['--cwd', '/repo', '--json', 'read', 'cwd'])))).toEqual({ value: { strategy: { plan: 'v1' }, tactics: { next: 'review' } } });
    expect(json(expectOk(await sf(['--json', 'show', '4'])))).toMatchObject({ meta: { undo: { writer: { client: 'claude-code', surface: 'mcp-http' }, since: 1, through: 3, seqs: [2] } } });
    expect(expectOk(await sf(['undo', '--writer', 'nobody', '--since', '0'])).stdout).toBe('undid 0 transitions after seq 0: nothing of theirs is left to undo; nothing published\n');
  });

  it('prints the conflict table and exits 4 where another writer built on the undone writes; --resolve settles it', async () => {
    const sf = await storeWith('conflict', [
      [ANA, { global: { strategy: { plan: 'v1' } } }],
      [AGENT, { global: { strategy: { plan: 'poisoned' } } }],
      [ANA, { global: { strategy: { plan: 'v2 on top' } } }],
    ]);
    const refused = await sf(['undo', '--writer', 'agent-7', '--since', '0']);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toContain('Conflicting paths (1): another writer changed them after the undone transitions');
    expect(refused.stdout).toContain('  global  both modified:  /strategy/plan  "poisoned"  "v2 on top"  "v1"');
    expect(refused.stderr).toMatch(/^stateflow: Undoing 1 transition \(seq 1…3\) leaves 1 conflict open/);
    expect(jsonError(await sf(['--json', 'undo', '--writer', 'agent-7', '--since', '0']), 4)).toMatchObject({ code: 'UNDO_CONFLICT', details: { undone: 1 } });
    expectOk(await sf(['undo', '--writer', 'agent-7', '--since', '0', '--resolve', 'global#/strategy/plan=theirs']));
    expect(json(expectOk(await sf(['--global', '--json', 'read', 'global.strategy.plan'])))).toEqual({ value: 'v1' });
  });

  it('refuses bad arguments with exit 2', async () => {
    const sf = await storeWith('usage', [[ANA, { global: { a: 1 } }]]);
    expect((await sf(['undo', '--since', '0'])).code).toBe(2);
    expect((await sf(['undo', '--writer', 'colour=red', '--since', '0'])).code).toBe(2);
    expect((await sf(['undo', '--writer', 'ana', '--since', '-1'])).code).toBe(2);
    expect((await sf(['undo', '--writer', 'ana', '--since', '0', '--resolve', '/plan=ours'])).code).toBe(2);
  });
});

describe('stateflow tag and log --tool', () => {
  it('sets, lists, reads at, keeps through compaction and removes tags; log filters by tool', async () => {
    const sf = await storeWith('tags', [
      [ANA, { 'cwd:/repo': { strategy: { n: 1 } } }],
      [AGENT, { 'cwd:/repo': { strategy: { n: 2 } } }],
    ]);
    expect(expectOk(await sf(['tag', 'set', 'before-cleanup', '--seq', '1'])).stdout).toBe('tag before-cleanup → seq 1: seq 3: stateflow:tags rev 1\n');
    expectOk(await sf(['tag', 'set', 'on-rev', '--stream', 'cwd:/repo', '--rev', '2']));
    expect(expectOk(await sf(['tag', 'list'])).stdout).toBe(['TAG             SEQ  STREAM     REV', 'before-cleanup  1    -          -', 'on-rev          2    cwd:/repo  2', ''].join('\n'));
    expect(json(expectOk(await sf(['--json', 'show', 'before-cleanup'])))).toMatchObject({ seq: 1 });
    expect(json(expectOk(await sf(['--json', 'diff', 'cwd:/repo', 'before-cleanup', 'on-rev'])))).toEqual({ strategy: { n: 2 } });
    expect(json(expectOk(await sf(['--cwd', '/repo', '--json', 'read', 'cwd[@before-cleanup].strategy.n'])))).toEqual({ value: 1 });
    expect(jsonError(await sf(['tag', 'set', 'before-cleanup', '--json']), 2)).toMatchObject({ code: 'TAG_INVALID', details: { reason: 'exists' } });
    const tools = expectOk(await sf(['log', '--tool', 'patch_state']));
    expect(tools.stdout).toContain('agent-7 mcp-http claude-code/1.2.0 tool:patch_state');
    expect(tools.stdout.split('\n').filter((line) => /^\d/.test(line))).toHaveLength(1);
    expect(expectOk(await sf(['log', '--from', 'on-rev', '--stream', 'cwd:/repo'])).stdout.split('\n').filter((line) => /^\d/.test(line))).toHaveLength(1);
    expect(json(expectOk(await sf(['--json', 'compact', 'cwd:/repo', '--keep', '1'])))).toMatchObject({ origin: 1 });
    expectOk(await sf(['tag', 'rm', 'before-cleanup']));
    expect(jsonError(await sf(['--json', 'tag', 'rm', 'before-cleanup']), 3)).toMatchObject({ code: 'TAG_NOT_FOUND' });
    expect((await sf(['tag', 'set', 'x', '--stream', 'cwd:/repo'])).code).toBe(2);
  });
});

describe('stateflow serve --savepoint-idle', () => {
  it("tags the seq before each writer's burst after the idle gap; off by default", async () => {
    // seq 1: the first burst's first write (savepoint at 0, its tag transition seq 2); seq 3: the
    // same burst; after the gap, seq 4 starts a new burst and the writer's savepoint moves to 3.
    for (const [name, flags, expected] of [
      ['savepoints-on', ['--savepoint-idle', '2s'], [{ name: 'savepoint.local-http', seq: 3 }]],
      ['savepoints-off', [], []],
    ] as const) {
      const dir = path.join(root, name);
      const { child, banner } = await startServe(['--dir', dir, 'serve', '--port', '0', ...flags], {});
      try {
        const url = /stateflow serving on (\S+)/.exec(banner)?.[1];
        expect(url, banner).toBeDefined();
        const publish = async (value: number) => {
          const answer = await http(`${url}/v1/store/publish`, { body: { changes: { global: { n: value } } } });
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        };
        await publish(1);
        await publish(2);
        await new Promise((resolve) => setTimeout(resolve, 2300));
        await publish(3);
      } finally {
        await stopServe(child);
      }
      expect(json(expectOk(await stateflow(['--dir', dir, 'tag', 'list', '--json']))), name).toEqual({ tags: expected });
    }
  });
});
