/**
 * Reduced runs of the fault and fuzz harness inside `npm test`. The full runs are
 * `node test/harness/<name>.mjs` (see test/harness/README.md).
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM scripts without type declarations
import { printKill9, runKill9 } from './kill9.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { corruptionFailures, printCorruption, runCorruption } from './corruption.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { fuzzFailures, printFuzz, runFuzz } from './fuzz.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { printWalDamage, runWalDamage, walDamageFailures } from './wal-damage.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { diskFullFailures, printDiskFull, runDiskFull } from './disk-full.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { powerLossFailures, printPowerLoss, runPowerLoss } from './power-loss.mjs';
import { unavailable } from '@stateflow/test-kit';

describe('fault and fuzz harness (reduced)', () => {
  it('kill -9 trials lose no acknowledged transition and audit clean', async () => {
    const report = await runKill9({ trials: 6, cycles: 3 });
    printKill9(report);
    expect(report.trials).toBe(6);
    expect(report.acknowledged).toBeGreaterThan(0);
    expect(report.lost).toBe(0);
    expect(report.hashMismatches).toBe(0);
    expect(report.auditFailures).toBe(0);
    expect(report.openFailures).toBe(0);
    expect(report.writerStartFailures).toBe(0);
  });

  // LevelDB itself rewrites its log/MANIFEST/CURRENT while opening (log recovery) before the
  // store reads a byte, and can abort natively on a damaged table: both are printed as
  // informational lines (see README); what the store controls is asserted here.
  it('corruption trials never read back wrong data silently and a failed open changes no stored key/value', async () => {
    const report = await runCorruption({ trials: 10, transitions: 150 });
    printCorruption(report);
    expect(report.trials).toBe(10);
    expect(report.silentWrong).toBe(0);
    expect(report.untypedErrors).toBe(0);
    expect(report.logicalDifferences).toBe(0);
    expect(corruptionFailures(report)).toBe(0);
  });

  it('write-ahead log and file damage: refused with STORE_CORRUPT, no byte changed, nothing lost silently, recovery names the losses', async () => {
    const report = await runWalDamage({ trials: 8 });
    printWalDamage(report);
    expect(report.trials).toBeGreaterThan(4);
    expect(report.refused).toBe(report.trials);
    expect(report.refusedNamingFile).toBe(report.trials);
    expect(report.recoveredClean).toBe(report.recovered);
    expect(walDamageFailures(report)).toBe(0);
  });

  it('crash images of a process crash and a power loss: nothing lost silently, no synced transition lost, refusals change no byte', async () => {
    const report = await runPowerLoss({ trials: 10 });
    printPowerLoss(report);
    expect(report.trials).toBeGreaterThan(5);
    expect(report.acknowledged).toBeGreaterThan(0);
    expect(powerLossFailures(report)).toBe(0);
  });

  it('disk full: no write accepted after a failed one until reopen, no acknowledged transition lost', async (t) => {
    const report = await runDiskFull({ trials: 4 });
    printDiskFull(report);
    if ('unavailable' in report) {
      unavailable(report.unavailable);
      return t.skip();
    }
    expect(report.trials).toBe(4);
    expect(report.acknowledged).toBeGreaterThan(0);
    expect(diskFullFailures(report)).toBe(0);
  });

  it('bad-input fuzz: no crash, no untyped error, no partial publication', async () => {
    const report = await runFuzz({ cases: 150 });
    printFuzz(report);
    expect(report.results.length).toBeGreaterThan(0);
    expect(fuzzFailures(report)).toBe(0);
  });
});
