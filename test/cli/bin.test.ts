/**
 * The `stateflow` executable from a checkout: npm links the committed launcher
 * `packages/cli/bin/stateflow.js` (executable in git, so every clone has the bit), which exists
 * before the first build, so `npm ci` links it and `npx stateflow` works once `npm run build`
 * has run, whatever the build writes.
 */
import { copyFile, mkdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, removeDir, runProcess, tempDir } from './helpers.js';

const LAUNCHER = path.join(REPO_ROOT, 'packages/cli/bin/stateflow.js');

let root: string;
beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await removeDir(root);
});

describe('the stateflow executable in the checkout', () => {
  it('is committed executable (mode 100755), so a clone has the bit without any build step', async () => {
    const listed = await runProcess('git', ['-C', REPO_ROOT, 'ls-files', '--stage', 'packages/cli/bin/stateflow.js']);
    if (listed.code !== 0) {
      console.warn('SKIPPED: the git mode check needs a git checkout of this repository');
      return;
    }
    expect(listed.stdout.split(/\s+/)[0]).toBe('100755');
    expect((await stat(LAUNCHER)).mode & 0o111).toBe(0o111);
  });

  it('is what npm linked as node_modules/.bin/stateflow (run "npm ci" again if this fails after an upgrade)', async () => {
    const link = path.join(REPO_ROOT, 'node_modules/.bin/stateflow');
    expect(path.resolve(path.dirname(link), await readlink(link))).toBe(path.join(REPO_ROOT, 'node_modules/@stateflow/cli/bin/stateflow.js'));
  });

  it('`npx stateflow --help` prints the usage from the checkout root', async () => {
    const result = await runProcess('npx', ['--no-install', 'stateflow', '--help'], { cwd: REPO_ROOT });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: stateflow \[options\] \[command\]/);
    expect(result.stdout).toContain('import-git');
  });

  it('says to build first, with exit 2, when dist/ has not been built', async () => {
    await mkdir(path.join(root, 'cli/bin'), { recursive: true });
    await copyFile(path.join(REPO_ROOT, 'packages/cli/package.json'), path.join(root, 'cli/package.json'));
    await copyFile(LAUNCHER, path.join(root, 'cli/bin/stateflow.js'));
    const result = await runProcess(process.execPath, [path.join(root, 'cli/bin/stateflow.js'), '--help']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('stateflow: the CLI is not built yet; run "npm run build" in the checkout first [USAGE]\n');
  });
});
