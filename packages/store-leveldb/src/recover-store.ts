/**
 * Recovery of a damaged store into a copy (README "Recovering a damaged store": the way out for an operator).
 * A store whose files are damaged does not open (`STORE_CORRUPT` naming the file and offset), and
 * nothing is ever recovered over it. `recoverStore` copies it, lets LevelDB's recovery run on the
 * copy (it drops what it cannot read), keeps the longest prefix of the log whose hash chain
 * verifies, removes every record of the transitions after it (they cannot be replayed without
 * the lost ones: `truncateToIntactChain` of `@stateflow/store`), audits the copy, and reports
 * exactly which transitions were lost: from the chain tip it kept to the last seq the damaged
 * store's files still name.
 */
import { cp, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { StateflowError, describeInput, isStateflowError } from '@stateflow/core';
import { seqOfLogKey, truncateToIntactChain } from '@stateflow/store';
import type { AuditProblem, TruncationReport } from '@stateflow/store';
import { checkLevelDbFiles } from './internal/file-check.js';
import { noStoreAt } from './internal/no-store.js';
import { batchPuts } from './internal/write-batch.js';
import { openDiskStorageRecovering, repairDiskStorage } from './disk-storage.js';
import { openStore } from './open-store.js';

/** What {@link recoverStore} did. Seqs are global transition numbers. */
export interface RecoveryReport {
  /** The damaged store (never written). */
  from: string;
  /** The recovered copy. */
  into: string;
  /** Damage found in the original's files before anything ran (file, byte offset, what). */
  damage: { kind: 'missing' | 'truncated' | 'damaged'; file: string; offset: number; detail: string }[];
  /** The last transition kept: the copy holds exactly 1…tip, with a verified chain. */
  tip: number;
  /**
   * The highest seq the damaged store's files name (its tables as LevelDB recovered them, and
   * every readable record of its write-ahead logs, also after the damage): the evidence of what
   * it held. `lost` runs from `tip + 1` to here.
   */
  lastSeqHeld: number;
  /** Transitions the copy does not hold, as inclusive ranges `[first, last]`. */
  lost: [number, number][];
  /**
   * When a file that held data is gone or cut short (a deleted log, a missing or truncated
   * table), no file says how many transitions it held: transitions after this seq may be lost
   * beyond `lost`. `null` when the evidence is complete.
   */
  mayHaveLostAfter: number | null;
  /** LevelDB's repair had to rebuild the copy (its plain recovery could not open it). */
  repaired: boolean;
  /** Of the lost ones, those LevelDB's recovery still read but that follow a lost one (removed from the copy). */
  dropped: number;
  /** Streams whose retained history starts after the tip: removed from the copy. */
  streamsRemoved: string[];
  /** The audit of the copy (empty when it is clean). */
  problems: AuditProblem[];
}

/**
 * Copy the damaged store at `dir` into the new directory `into`, recover the copy and report
 * what was lost. The original is only read.
 * @example
 * ```ts
 * const report = await recoverStore('.stateflow', '.stateflow-recovered');
 * if (report.lost.length > 0) console.warn(`lost transitions ${report.lost.map(([a, b]) => `${a}–${b}`).join(', ')}`);
 * const store = await openStore(report.into); // audited: report.problems
 * ```
 * @throws INPUT_INVALID when `into` exists and is not empty, or is inside `dir`; STORE_LOCKED
 *   when a process holds `dir` (stop it first: its files are changing); NOT_FOUND when `dir`
 *   holds no LevelDB database; STORE_IO when files cannot be read or written.
 */
export async function recoverStore(dir: string, into: string): Promise<RecoveryReport> {
  for (const [field, value] of [['dir', dir], ['into', into]] as const) {
    if (typeof value !== 'string' || value.length === 0) {
      throw new StateflowError('INPUT_INVALID', `recoverStore needs a directory path as ${field}, got ${describeInput(value)}`, { field });
    }
  }
  const source = path.resolve(dir);
  const target = path.resolve(into);
  if (target === source || target.startsWith(`${source}${path.sep}`)) {
    throw new StateflowError('INPUT_INVALID', `The recovered copy must go to a new directory outside ${source}, got ${target}`, { field: 'into' });
  }
  if ((await entries(target)).length > 0) {
    throw new StateflowError('INPUT_INVALID', `${target} is not empty: recovery writes its copy into a new, empty directory`, { field: 'into' });
  }
  const files = await checkLevelDbFiles(source, { tolerateDamage: true });
  if (!files.exists) throw noStoreAt(source);
  // Every record of the logs that verifies — also after damage — is evidence of what was held.
  let lastSeqHeld = 0;
  const damage = [...files.damage];
  for (const log of files.logs) {
    for (const record of [...log.scan.records, ...log.scan.later]) lastSeqHeld = Math.max(lastSeqHeld, ...logSeqsIn(record.data));
    const found = log.scan.damage;
    if (found !== null) damage.push({ kind: 'damaged', file: log.name, offset: found.offset, detail: `write-ahead log damaged (${found.reason})` });
  }
  await mkdir(target, { recursive: true });
  await io(target, () => cp(source, target, { recursive: true, filter: (file) => path.basename(file) !== 'LOCK' }));

  // LevelDB's recovery first; when it cannot open or read the copy (a garbled CURRENT, a missing
  // MANIFEST, a truncated table), LevelDB's repair rebuilds the copy and everything runs again.
  let repaired = false;
  let kept: TruncationReport;
  try {
    kept = await cutToIntactPrefix(target);
  } catch (err) {
    if (!isStateflowError(err, 'STORE_IO', 'STORE_CORRUPT')) throw err;
    await repairDiskStorage(target);
    repaired = true;
    kept = await cutToIntactPrefix(target);
  }
  const { tip } = kept;
  lastSeqHeld = Math.max(lastSeqHeld, kept.lastSeq);
  const store = await openStore(target, { createIfMissing: false });
  let problems: AuditProblem[];
  try {
    problems = (await store.audit()).problems;
  } finally {
    await store.close();
  }
  return {
    from: source,
    into: target,
    damage,
    tip,
    lastSeqHeld: Math.max(lastSeqHeld, tip),
    lost: lastSeqHeld > tip ? [[tip + 1, lastSeqHeld]] : [],
    mayHaveLostAfter: damage.some((d) => d.kind !== 'damaged') ? Math.max(lastSeqHeld, tip) : null,
    repaired,
    dropped: kept.dropped,
    streamsRemoved: kept.streamsRemoved,
    problems,
  };
}

/**
 * Open the copy with LevelDB's recovery and cut it to the longest intact prefix of its chain
 * (writing the format record if the damage took it).
 * @returns the tip kept, the highest seq the copy held, what was cut
 */
async function cutToIntactPrefix(dir: string): Promise<TruncationReport> {
  const storage = await openDiskStorageRecovering(dir);
  try {
    return await truncateToIntactChain(storage);
  } finally {
    await storage.close();
  }
}

/** Seqs of the transitions (`L` keys) a write-batch record puts; none when it does not decode. */
function logSeqsIn(record: Uint8Array): number[] {
  try {
    return batchPuts(record).flatMap(({ key }) => {
      const seq = seqOfLogKey(key);
      return seq === null ? [] : [seq];
    });
  } catch {
    return [];
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ioFailure(dir, err);
  }
}

async function io<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw isStateflowError(err) ? err : ioFailure(dir, err);
  }
}

function ioFailure(dir: string, err: unknown): StateflowError<'STORE_IO'> {
  return new StateflowError('STORE_IO', `Cannot write the recovered copy at ${dir}: ${(err as Error).message}`, { location: dir, code: (err as NodeJS.ErrnoException).code ?? null }, { cause: err });
}
