/**
 * The Python client's own tests (clients/python: `python3 -m unittest`) as part of `npm test`.
 * They start the built `stateflow serve` themselves (this package's turbo task runs after every
 * build), with this process's node. Without a Python 3.9 or later they are skipped with a
 * message (test-kit `unavailable`), and under CI=true that fails the run instead.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unavailable } from '@stateflow/test-kit';
import { REPO_ROOT, runProcess } from '../cli/helpers.js';

const PYTHON = process.env['STATEFLOW_PYTHON'] ?? 'python3';

/** Why the suite cannot run here, or `null`. */
function pythonMissing(): string | null {
  const probe = spawnSync(PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return `${PYTHON} not found: the Python client's tests (clients/python) did not run`;
  const [major = 0, minor = 0] = probe.stdout.trim().split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 9) ? null : `${PYTHON} is Python ${probe.stdout.trim()}; the Python client needs 3.9 or later, so its tests did not run`;
}

const missing = pythonMissing();
if (missing !== null) unavailable(missing);

describe('the Python client (clients/python)', () => {
  it.skipIf(missing !== null)('passes its unittest suite against a real stateflow serve', async () => {
    const result = await runProcess(PYTHON, ['-m', 'unittest', '-v'], {
      cwd: path.join(REPO_ROOT, 'clients/python'),
      env: { STATEFLOW_NODE: process.execPath, PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    const ran = Number(/^Ran (\d+) tests? in/m.exec(result.stderr)?.[1]);
    expect(ran).toBeGreaterThanOrEqual(45);
    const skipped = result.stderr.split('\n').filter((line) => line.includes('... skipped'));
    console.log([`python3 -m unittest: ${ran} tests`, ...skipped].join('\n'));
  });
});
