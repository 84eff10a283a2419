/**
 * `stateflow merge` end to end through the BUILT bin on a LevelDB store in a temp directory:
 * a clean merge, the conflict table of a dry run and of a refused merge (exit 4), `--json`
 * errors with every conflict, `--resolve` and `--prefer`, bad arguments (exit 2), unrelated
 * streams, and two forks of eslint's real package.json history merged back (skipped visibly
 * when the shared histories are absent; a failure under CI=true).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, HISTORIES, historiesAvailable, json, jsonError, jsonLines, removeDir, stateflow, tempDir, type RunResult } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await tempDir();
});

afterAll(async () => {
  await removeDir(root);
});

/** A fresh store with `main` at {plan, notes} and `draft` forked from it; returns `stateflow --dir D …`. */
async function forkedStore(name: string): Promise<(args: string[]) => Promise<RunResult>> {
  const dir = path.join(root, name);
  const sf = (args: string[]) => stateflow(['--dir', dir, ...args]);
  expectOk(await sf(['--session', 'main', 'patch', '{"strategy":{"plan":"v1","owner":"ana"},"lazy":{"notes":{"a":"first"}}}']));
  expectOk(await sf(['fork', 'session:main', 'session:draft']));
  return sf;
}

describe('stateflow merge', () => {
  it('merges disjoint changes into one transition and says what it did', async () => {
    const sf = await forkedStore('clean');
    expectOk(await sf(['--session', 'draft', 'patch', '{"lazy":{"notes":{"b":"draft"}}}']));
    expectOk(await sf(['--session', 'main', 'patch', '{"strategy":{"owner":"bo"}}']));
    const merged = expectOk(await sf(['merge', 'session:draft', 'session:main']));
    expect(merged.stdout).toBe('merged session:draft rev 2 into session:main (merge base session:main@1): seq 5: session:main rev 3\n');
    expect(json(expectOk(await sf(['--session', 'main', '--json', 'read', 'session.strategy', 'session.lazy.notes'])))).toEqual({
      value: [{ plan: 'v1', owner: 'bo' }, { a: 'first', b: 'draft' }],
    });
    expect(json(expectOk(await sf(['--json', 'show', '5'])))).toMatchObject({ meta: { merge: { from: 'session:draft', fromRev: 2, base: { stream: 'session:main', rev: 1 } } } });
    expect(expectOk(await sf(['merge', 'session:draft', 'session:main'])).stdout).toBe(
      'merged session:draft rev 2 into session:main (merge base session:draft@2): session:main already holds every change; nothing published\n',
    );
  });

  it('prints the conflict table and exits 4, for a dry run and for a refused merge; --json carries every conflict', async () => {
    const sf = await forkedStore('conflicts');
    expectOk(await sf(['--session', 'draft', 'patch', '{"strategy":{"plan":"v2"},"lazy":{"notes":null,"extra":{"x":1}}}']));
    expectOk(await sf(['--session', 'main', 'patch', '{"strategy":{"plan":"v3"},"lazy":{"notes":{"a":"edited"}}}']));
    const table = [
      '  kind                path            base           ours            theirs',
      '  both modified:      /strategy/plan  "v1"           "v3"            "v2"',
      '  deleted by theirs:  /lazy/notes     {"a":"first"}  {"a":"edited"}  (deleted)',
    ].join('\n');
    const preview = await sf(['merge', 'session:draft', 'session:main', '--dry-run']);
    expect(preview.code).toBe(4);
    expect(preview.stderr).toBe('');
    expect(preview.stdout).toBe(
      [
        'Merging session:draft (rev 2) into session:main (rev 2); merge base session:main@1.',
        '',
        'Changes to be published:',
        '  changed:  /lazy/extra/x',
        '',
        'Unmerged paths (2):',
        '  (settle each with --resolve PATH=ours|theirs|JSON, or all with --prefer ours|theirs; ours = <into>, theirs = <from>)',
        table,
        '',
      ].join('\n'),
    );
    const refused = await sf(['merge', 'session:draft', 'session:main']);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toContain(table);
    expect(refused.stderr).toMatch(/^stateflow: Merging session:draft .* leaves 2 conflicts open .*nothing was published.*\[MERGE_CONFLICT\]\n$/);
    const error = jsonError(await sf(['--json', 'merge', 'session:draft', 'session:main']), 4);
    expect(error.code).toBe('MERGE_CONFLICT');
    expect(error.details).toEqual({
      from: 'session:draft',
      into: 'session:main',
      fromRev: 2,
      intoRev: 2,
      base: { stream: 'session:main', rev: 1 },
      conflicts: [
        { path: '/strategy/plan', base: 'v1', ours: 'v3', theirs: 'v2' },
        { path: '/lazy/notes', base: { a: 'first' }, ours: { a: 'edited' }, theirs: null },
      ],
    });
    const jsonPreview = await sf(['--json', 'merge', 'session:draft', 'session:main', '--dry-run']);
    expect(jsonPreview.code).toBe(4);
    expect(json(jsonPreview)).toMatchObject({ status: 'preview', transition: null, patch: { lazy: { extra: { x: 1 } } } });
    expect(jsonLines(expectOk(await sf(['--json', 'log', '--stream', 'session:main'])).stdout)).toHaveLength(2);
  });

  it('--resolve settles single paths (ours, theirs, JSON, null) and --prefer the rest', async () => {
    const sf = await forkedStore('resolve');
    expectOk(await sf(['--session', 'draft', 'patch', '{"strategy":{"plan":"v2","owner":"cy"},"lazy":{"notes":null}}']));
    expectOk(await sf(['--session', 'main', 'patch', '{"strategy":{"plan":"v3","owner":"bo"},"lazy":{"notes":{"a":"edited"}}}']));
    const preview = expectOk(await sf(['merge', 'session:draft', 'session:main', '--dry-run', '--resolve', '/strategy/plan={"both":["v2","v3"]}', '--resolve', '/lazy/notes=null', '--prefer', 'theirs']));
    expect(preview.stdout).toContain(
      [
        'Resolved (3):',
        '  kind                path             resolution',
        '  both modified:      /strategy/plan   {"both":["v2","v3"]}',
        '  both modified:      /strategy/owner  theirs',
        '  deleted by theirs:  /lazy/notes      (deleted)',
      ].join('\n'),
    );
    const merged = expectOk(await sf(['merge', 'session:draft', 'session:main', '--resolve', '/strategy/plan=ours', '--resolve', '/lazy/notes=theirs', '--prefer', 'theirs']));
    expect(merged.stdout).toMatch(/; 3 conflicts resolved\n$/);
    expect(json(expectOk(await sf(['--session', 'main', '--json', 'read', 'session.strategy', 'session.lazy'])))).toEqual({ value: [{ plan: 'v3', owner: 'cy' }, {}] });
  });

  it('refuses bad arguments (exit 2), unknown streams (exit 3) and unrelated streams (exit 2)', async () => {
    const sf = await forkedStore('refusals');
    for (const args of [
      ['--resolve', 'plan=ours'],
      ['--resolve', '/strategy/plan'],
      ['--resolve', '/strategy/plan=v2'],
      ['--resolve', '/a=ours', '--resolve', '/a=theirs'],
      ['--prefer', 'mine'],
    ]) {
      const result = await sf(['merge', 'session:draft', 'session:main', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/\[USAGE\]\n$/);
    }
    expect(jsonError(await sf(['--json', 'merge', 'session:draft', 'session:typo']), 3).code).toBe('NOT_FOUND');
    expectOk(await sf(['--session', 'other', 'patch', '{"tactics":{"t":1}}']));
    expect(jsonError(await sf(['--json', 'merge', 'session:other', 'session:main']), 2).code).toBe('MERGE_UNRELATED');
    expect(jsonError(await sf(['--json', 'merge', 'session:draft', 'session:main', '--resolve', '/nope=ours']), 2).details).toEqual({ field: 'resolve', reason: 'not-a-conflict' });
  });
});

const ESLINT = 'eslint-package-json.jsonl';
const available = historiesAvailable([ESLINT]);

(available ? describe : describe.skip)('stateflow merge: two forks of eslint package.json history', () => {
  it('brings both forks back; the second one conflicts where both edited, and resolves', async () => {
    const dir = path.join(root, 'eslint');
    const sf = (args: string[]) => stateflow(['--dir', dir, ...args]);
    const main = 'cwd:/work/eslint';
    expectOk(await sf(['import', path.join(HISTORIES, ESLINT), '--stream', main, '--at', 'lazy.manifest']));
    expectOk(await sf(['fork', main, 'session:release']));
    expectOk(await sf(['fork', main, 'session:deps']));
    expectOk(await sf(['--session', 'release', 'patch', JSON.stringify({ lazy: { manifest: { version: '10.10.0', keywords: ['ast', 'lint', 'javascript', 'ecmascript', 'espree', 'linter'], scripts: { 'test:cli': 'mocha --forbid-only', changelog: 'node tools/release-notes.js' }, devDependencies: { '@types/node': '^22.15.0' } } } })]));
    expectOk(await sf(['--session', 'deps', 'patch', JSON.stringify({ lazy: { manifest: { version: '11.0.0-alpha.0', keywords: null, scripts: { 'test:cli': 'mocha --parallel' }, devDependencies: { '@types/node': '^24.0.0', 'fast-check': '^4.2.0' }, engines: { node: '>=22' } } } })]));
    expect(expectOk(await sf(['merge', 'session:release', main])).stdout).toBe(`merged session:release rev 2 into ${main} (merge base ${main}@1288): seq 1293: ${main} rev 1289\n`);
    const refused = await sf(['merge', 'session:deps', main]);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toBe(
      [
        `Merging session:deps (rev 2) into ${main} (rev 1289); merge base ${main}@1288.`,
        '',
        'Unmerged paths (4):',
        '  (settle each with --resolve PATH=ours|theirs|JSON, or all with --prefer ours|theirs; ours = <into>, theirs = <from>)',
        '  kind                path                                         base                            ours                            theirs',
        '  both modified:      /lazy/manifest/version                       "10.9.0"                        "10.10.0"                       "11.0.0-alpha.0"',
        '  both modified:      /lazy/manifest/scripts/test:cli              "mocha"                         "mocha --forbid-only"           "mocha --parallel"',
        '  deleted by theirs:  /lazy/manifest/keywords                      ["ast","lint","javascript","e…  ["ast","lint","javascript","e…  (deleted)',
        '  both modified:      /lazy/manifest/devDependencies/@types~1node  "^22.13.14"                     "^22.15.0"                      "^24.0.0"',
        '',
      ].join('\n'),
    );
    const resolved = expectOk(await sf(['--json', 'merge', 'session:deps', main, '--resolve', '/lazy/manifest/version=theirs', '--resolve', '/lazy/manifest/scripts/test:cli="mocha --parallel --forbid-only"', '--resolve', '/lazy/manifest/keywords=ours', '--prefer', 'theirs']));
    expect(json(resolved)).toMatchObject({
      status: 'accepted',
      base: { stream: main, rev: 1288 },
      patch: { lazy: { manifest: { version: '11.0.0-alpha.0', scripts: { 'test:cli': 'mocha --parallel --forbid-only' }, devDependencies: { '@types/node': '^24.0.0', 'fast-check': '^4.2.0' }, engines: { node: '>=22' } } } },
    });
    expect(json(expectOk(await sf(['--cwd', '/work/eslint', '--json', 'read', 'cwd.lazy.manifest.version', 'cwd.lazy.manifest.scripts', 'cwd.lazy.manifest.devDependencies'])))).toMatchObject({
      value: ['11.0.0-alpha.0', { 'test:cli': 'mocha --parallel --forbid-only', changelog: 'node tools/release-notes.js' }, { '@types/node': '^24.0.0', 'fast-check': '^4.2.0' }],
    });
    expect(expectOk(await sf(['merge', main, 'session:deps'])).stdout).toMatch(/\(merge base session:deps@2\): seq 1295: session:deps rev 3\n$/);
    expect(expectOk(await sf(['audit'])).stdout).toMatch(/: clean\n$/);
  });
});
