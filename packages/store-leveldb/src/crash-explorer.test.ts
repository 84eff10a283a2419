/**
 * The crash-state explorer (README "Durability contract", "Every crash state"): every crash state
 * of the recorded workloads, opened on both boot modes and checked against their ledgers.
 * `npm test` checks every distinct state of the small workloads and every 200th of the log switch's
 * (≥ 1,000 states); `STATEFLOW_CRASH_STATES=all` (npm run test:deep) checks all of them
 * (≥ 10,000, ≥ 5,000 after a power loss).
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '@stateflow/test-kit';
import { explore } from './test-support/explorer/explore.js';
import { haveStrace } from './test-support/explorer/trace.js';

const all = process.env.STATEFLOW_CRASH_STATES === 'all';
const present = haveStrace();
if (!present) {
  console.warn('crash-explorer.test.ts: strace is not installed (/usr/bin/strace): skipped');
  if (process.env.CI === 'true') throw new Error('strace is required under CI=true (.ci/run installs it)');
}

describe.skipIf(!present)('every crash state of the recorded workloads', () => {
  it('opens each as a legal crash leaves it, with every acknowledged transition (0 violations, 0 false alarms)', async () => {
    const started = Date.now();
    const report = await explore(await tempDir('explorer'), { strides: all ? {} : { logSwitch: 200 } });
    console.log(JSON.stringify({ seconds: Math.round((Date.now() - started) / 1000), ...report, violations: report.violations.slice(0, 20) }, null, 1));
    expect(report.violations).toEqual([]);
    expect(report.checked).toBeGreaterThanOrEqual(all ? 10_000 : 1_000);
    if (all) expect(report.power).toBeGreaterThanOrEqual(5_000);
  }, 3_600_000);
});
