/**
 * Each published package's README ships in its npm tarball and must stand on its own: a reader of the
 * repository or of the package does not have the team's specification files (`seeds/`), its
 * design notes (`DESIGN.md`), the folder beside the checkout (`../shared`) or the issue tracker.
 * Its first example (the block marked `example`) runs as printed, as a module in the package's
 * folder (so its imports resolve as they would for a user of the package).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresStore, openPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { readmeBlock, removeDir, REPO_ROOT, runProcess, tempDir } from './helpers.js';

const postgres = await testPostgres();

/** What a README may not lean on, with the reason shown when it does. */
const OUTSIDE = [
  { pattern: /\bseeds?\//, what: 'the specification files (seeds/)' },
  { pattern: /DESIGN\.md/, what: 'the design notes (DESIGN.md)' },
  { pattern: /\bissue \d+/i, what: 'an issue number' },
  { pattern: /\.\.\/shared\/(?!data\/histories\/)/, what: 'the folder beside the checkout (../shared)' },
];

describe('package READMEs', () => {
  it('cite nothing a user of the repository or the package does not have', async () => {
    const published: string[] = [];
    for (const name of await readdir(path.join(REPO_ROOT, 'packages'))) {
      const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'packages', name, 'package.json'), 'utf8')) as { private?: boolean };
      if (manifest.private !== true) published.push(name);
    }
    expect(published.length).toBeGreaterThanOrEqual(7);
    for (const name of published) {
      const text = await readFile(path.join(REPO_ROOT, 'packages', name, 'README.md'), 'utf8');
      for (const { pattern, what } of OUTSIDE) {
        const line = text.split('\n').findIndex((l) => pattern.test(l));
        expect(line, `packages/${name}/README.md line ${line + 1} cites ${what}`).toBe(-1);
      }
    }
  });
});

describe('package README examples run as printed', () => {
  let root: string;
  beforeAll(async () => {
    root = await tempDir('readme-examples');
  });
  afterAll(async () => {
    await removeDir(root);
  });

  /** Run the `block` block (default `example`) of packages/<name>/README.md in that package's folder; its stdout. */
  const runExample = async (name: string, env: Record<string, string> = {}, block = 'example'): Promise<string> => {
    const code = await readmeBlock(block, 'js', `packages/${name}/README.md`);
    const result = await runProcess(process.execPath, ['--input-type=module', '-e', code], { cwd: path.join(REPO_ROOT, 'packages', name), env });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };

  it('store: publish with a guard and an id, time travel, the effective view, watch from the start', async () => {
    expect(await runExample('store')).toBe(
      [
        "{ strategy: { goal: 'draft' } }",
        "{ strategy: { goal: 'ship' }, response: 'ok' }",
        "1 [ 'global' ]",
        "2 [ 'global', 'session:42' ]",
        '',
      ].join('\n'),
    );
  });

  it('store "Undo": a preview, the undo, and a conflict where another writer built on the undone write', async () => {
    expect(await runExample('store', {}, 'undo-example')).toBe(
      [
        "[ 2 ] { 'cwd:/repo': { lazy: null, strategy: { plan: 'ship v1' } } } []",
        "{ strategy: { plan: 'ship v1' }, tactics: { next: 'review' } }",
        'UNDO_CONFLICT [',
        '  {',
        "    stream: 'cwd:/repo',",
        "    path: '/strategy/plan',",
        "    base: 'poisoned',",
        "    ours: 'ship v2',",
        "    theirs: 'ship v1'",
        '  }',
        ']',
        '',
      ].join('\n'),
    );
  });

  it('store "Shapes": declare, upgrade, read stored and current, a refused write — the output printed under it', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'packages/store/README.md'), 'utf8');
    const printed = /<!-- shapes-example:end -->\n\nprints\n\n```\n([\s\S]*?)\n```/.exec(readme)?.[1];
    expect(printed).toMatch(/SHAPE_VIOLATION/);
    expect(await runExample('store', {}, 'shapes-example')).toBe(`${printed}\n`);
  });

  it('store "Tags": set, list, read at, and compaction that keeps tagged revisions', async () => {
    expect(await runExample('store', {}, 'tags-example')).toBe(
      [
        '[',
        "  { name: 'before-cleanup', seq: 3 },",
        "  { name: 'first', seq: 1, stream: 'global', rev: 1 }",
        ']',
        '{ strategy: { step: 3 } }',
        '{ origin: 1, deleted: 1 }',
        '{ origin: 3, deleted: 2 }',
        '',
      ].join('\n'),
    );
  });

  it('store "Retention": policies per family, a dry run, the run, the chain verified', async () => {
    expect(await runExample('store', {}, 'retention-example')).toBe(
      [
        '[',
        "  { pattern: 'langgraph:*', idleMs: 604800000 },",
        "  { pattern: 'session:*', maxRevisions: 100 }",
        ']',
        '[',
        '  {',
        "    pattern: 'langgraph:*',",
        '    streams: 23,',
        '    revisions: 92,',
        '    bytes: 690,',
        '    kept: { streams: 7, revisions: 21, bytes: 210 }',
        '  },',
        '  {',
        "    pattern: 'session:*',",
        '    streams: 0,',
        '    revisions: 0,',
        '    bytes: 0,',
        '    kept: { streams: 1, revisions: 1, bytes: 11 }',
        '  }',
        '] { streams: 23, revisions: 92, bytes: 690 }',
        '{',
        "  stream: 'langgraph:run-1',",
        "  family: 'langgraph:*',",
        '  rev: 3,',
        '  fromOrigin: 0,',
        '  origin: 4,',
        '  revisions: 4,',
        '  bytes: 30,',
        '  expired: true',
        '}',
        '{ streams: 23, revisions: 92, bytes: 690 } []',
        '{} { step: 3 }',
        '',
      ].join('\n'),
    );
  });

  it('store-leveldb: a store in a directory, publish, close', async () => {
    const dir = path.join(root, 'leveldb');
    expect(await runExample('store-leveldb', { STATEFLOW_DIR: dir })).toBe('');
    expect((await readdir(dir)).includes('CURRENT')).toBe(true);
  });

  it.skipIf('unavailable' in postgres)('store-postgres: a store in a schema, publish, close', async () => {
    const url = freshPostgresUrl('readme');
    try {
      expect(await runExample('store-postgres', { DATABASE_URL: url })).toBe('');
      const store = await openPostgresStore(url, { createIfMissing: false });
      expect(await store.state('global')).toEqual({ strategy: { goal: 'ship' } });
      await store.close();
    } finally {
      await dropPostgresStore(url);
    }
  });
});
