/**
 * Disk-full trials (store README "Fail closed"): per trial a store on a small tmpfs (2–5 MB)
 * takes patches of 8–120 KB, 1–4 at a time (group commit), buffered or fsync, until a write
 * fails; the disk then grows. Writes to the same open store must all be refused
 * (REOPEN_REQUIRED); in half the trials the store is then driven through `reopeningStore` (what
 * `stateflow serve` holds), whose next write reopens it and must be accepted. After a close and
 * a fresh open, every acknowledged transition must be there with its acknowledged hash, and the
 * audit clean. Needs root for `mount`.
 *
 *   node test/harness/disk-full.mjs        # HARNESS_TRIALS=12 HARNESS_SEED=…
 */
import { openStore } from '@stateflow/store-leveldb';
import { reopeningStore } from '@stateflow/server';
import { mountTmpfs } from '@stateflow/test-kit';
import { envInt, isMain, printReport, rng } from './lib.mjs';

/**
 * Run `trials` disk-full trials; returns the report, or `{ unavailable }` when no tmpfs can be mounted.
 * @param {{ trials?: number, seed?: number }} options
 */
export async function runDiskFull(options = {}) {
  const { trials = 12, seed = Date.now() } = options;
  const random = rng(seed);
  const report = { seed, trials: 0, acknowledged: 0, failedWrites: 0, acceptedBeforeReopen: 0, acceptedAfterReopen: 0, lost: 0, hashMismatches: 0, auditProblems: 0, untyped: 0 };
  for (let trial = 0; trial < trials; trial++) {
    const disk = await mountTmpfs((2 + Math.floor(random() * 4)) * 1024 * 1024);
    if ('unavailable' in disk) return disk;
    try {
      const dir = `${disk.dir}/store`;
      const durability = random() < 0.5 ? 'fsync' : 'buffered';
      const lanes = 1 + Math.floor(random() * 4);
      const open = () => openStore(dir, { durability, checkpointInterval: 8 });
      let store = await open();
      const acked = new Map();
      const note = (result) => {
        if (result.status === 'accepted') acked.set(result.transition.seq, result.transition.hash);
      };
      const typed = (err) => {
        if (err?.name !== 'StateflowError') report.untyped++;
        return err;
      };
      let n = 0;
      const publish = (s) => {
        n++;
        return s.publish({ changes: { [`session:${n % 3}`]: { [`k${n}`]: 'x'.repeat(8_000 + Math.floor(random() * 112_000)) } }, meta: { n } });
      };
      let full = false;
      while (!full && n < 5_000) {
        const settled = await Promise.allSettled(Array.from({ length: lanes }, () => publish(store)));
        for (const s of settled) {
          if (s.status === 'fulfilled') note(s.value);
          else {
            typed(s.reason);
            full = true;
          }
        }
      }
      report.trials++;
      report.failedWrites++;
      await disk.resize(64 * 1024 * 1024);
      for (let i = 0; i < 3; i++) {
        const err = await publish(store).then(
          (r) => (note(r), null),
          (e) => typed(e),
        );
        if (err?.code !== 'REOPEN_REQUIRED') report.acceptedBeforeReopen++;
      }
      if (random() < 0.5) {
        const served = reopeningStore(store, open);
        for (let i = 0; i < 3; i++) {
          const result = await publish(served).catch((e) => typed(e));
          if (result?.status === 'accepted') {
            note(result);
            report.acceptedAfterReopen++;
          }
        }
        store = served;
      }
      await store.close();
      const reopened = await openStore(dir, { createIfMissing: false });
      try {
        const seen = new Map();
        for await (const t of reopened.transitions()) seen.set(t.seq, t.hash);
        for (const [seq, hash] of acked) {
          if (!seen.has(seq)) report.lost++;
          else if (seen.get(seq) !== hash) report.hashMismatches++;
        }
        report.acknowledged += acked.size;
        report.auditProblems += (await reopened.audit()).problems.length;
      } finally {
        await reopened.close();
      }
    } finally {
      await disk.unmount();
    }
  }
  return report;
}

/** Print the report table of {@link runDiskFull}. */
export function printDiskFull(report) {
  if ('unavailable' in report) {
    console.log(`disk-full trials skipped: ${report.unavailable}`);
    return;
  }
  printReport(`disk-full trials (seed ${report.seed})`, [
    ['trials (each ends in a failed write, then the disk grows)', report.trials],
    ['acknowledged transitions', report.acknowledged],
    ['writes accepted by the same open store after the failure (must be 0)', report.acceptedBeforeReopen, (v) => v === 0],
    ['writes accepted by a reopening store (the server path) after the failure', report.acceptedAfterReopen],
    ['acknowledged transitions lost after reopen (must be 0)', report.lost, (v) => v === 0],
    ['acknowledged transitions with another hash after reopen (must be 0)', report.hashMismatches, (v) => v === 0],
    ['audit problems after reopen (must be 0)', report.auditProblems, (v) => v === 0],
    ['untyped errors (must be 0)', report.untyped, (v) => v === 0],
  ]);
}

/** Sum of every must-be-zero counter (0 when skipped). */
export function diskFullFailures(report) {
  if ('unavailable' in report) return 0;
  return report.acceptedBeforeReopen + report.lost + report.hashMismatches + report.auditProblems + report.untyped;
}

if (isMain(import.meta.url)) {
  const report = await runDiskFull({ trials: envInt('HARNESS_TRIALS', 12), seed: envInt('HARNESS_SEED', Date.now()) });
  printDiskFull(report);
  process.exitCode = diskFullFailures(report) === 0 && !('unavailable' in report) ? 0 : 1;
}
