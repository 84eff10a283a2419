/**
 * Progress bars: drawn on stderr when it is a terminal and the work has run a while (run under
 * `script`, which gives the child a pseudo-terminal; `STATEFLOW_PROGRESS_DELAY_MS=0` stands in
 * for the one-second wait, which `src/internal/progress.test.ts` covers with fake timers), never
 * when stderr is a pipe.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, removeDir, runProcess, stateflow, tempDir } from './helpers.js';

let root: string;
let history: string;

beforeAll(async () => {
  root = await tempDir();
  history = path.join(root, 'history.jsonl');
  const lines = Array.from({ length: 250 }, (_, i) => JSON.stringify({ rev: i + 1, doc: { counter: i + 1, tags: ['a', String(i % 7)] } }));
  await writeFile(history, `${lines.join('\n')}\n`);
});

afterAll(async () => {
  await removeDir(root);
});

describe('progress bars', () => {
  it('are absent when stderr is not a terminal', async () => {
    const result = await stateflow(['--dir', path.join(root, 'piped'), 'import', history, '--stream', 'global', '--at', 'lazy.h'], { env: { STATEFLOW_PROGRESS_DELAY_MS: '0' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('imported 250 revisions into global at lazy.h: rev 1..250\n');
  });

  it('are drawn on an interactive terminal for long work, then cleared', async () => {
    const which = await runProcess('sh', ['-c', 'command -v script']);
    if (which.code !== 0) {
      console.warn('SKIPPED: the `script` command (util-linux) is needed to give the child a terminal');
      return;
    }
    const command = [process.execPath, BIN, '--dir', path.join(root, 'tty'), 'import', history, '--stream', 'global', '--at', 'lazy.h']
      .map((word) => `'${word}'`)
      .join(' ');
    const result = await runProcess('script', ['-qec', command, '/dev/null'], { env: { STATEFLOW_PROGRESS_DELAY_MS: '0' } });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('import: publishing [');
    expect(result.stdout).toContain('100% | 250/250');
    expect(result.stdout).toContain('imported 250 revisions into global at lazy.h: rev 1..250');
  });
});
