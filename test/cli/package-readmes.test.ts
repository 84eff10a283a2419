/**
 * Each published package's README ships in its npm tarball and must stand on its own: a reader of the
 * repository or of the package does not have the team's specification files (`seeds/`), its
 * design notes (`DESIGN.md`), the folder beside the checkout (`../shared`) or the issue tracker.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers.js';

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
