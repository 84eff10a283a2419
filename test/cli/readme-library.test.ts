/**
 * The README's "As a library" block runs as an ES module from the checkout root (so the
 * workspace packages resolve), against a store in a temp directory; its printed results must
 * be the ones its comments promise.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, removeDir, runProcess, tempDir } from './helpers.js';

let root: string;
beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await removeDir(root);
});

describe('README library example', () => {
  it('patches, time-travels, projects a patch and audits clean, as its comments say', async () => {
    const code = await readmeBlock('library', 'js');
    expect(code, 'README.md has a library block').toBeDefined();
    const result = await runProcess(process.execPath, ['--input-type=module', '-e', code as string], {
      env: { STATEFLOW_DIR: path.join(root, 'store') },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['{"value":"draft"}', '{"patch":{"next":"review"}}', '2 0']);
  });
});
