/**
 * Corruption trials (test/harness/README.md): populate a LevelDB store, record an
 * oracle of everything readable, close it; then per trial copy it, flip random bytes in one
 * of its LevelDB files (.ldb / .log), reopen, audit and read everything back. Each trial is
 *   detected               — open, audit or a read failed with a StateflowError / a problem;
 *   undetected but harmless — everything reads back equal to the oracle;
 *   silent wrong read       — a read returned something else without an error (must be 0).
 * A failed store open must leave the stored data as it was: a logical dump of every key/value
 * through the raw classic-level API (corruption-dump.mjs, a child process) of a copy taken
 * before the open and of the directory after it must be identical (must be 0 differences).
 * LevelDB's own recovery on open (its .log folded into a table, a new MANIFEST/CURRENT) changes
 * files physically without changing data: reported on its own, informational.
 * Each trial's open/audit/reads run in a child process (corruption-trial.mjs): a damaged table
 * can abort the process from LevelDB's native code (an assertion in LevelDB itself; the raw
 * dump of the same files shows whether plain classic-level aborts too): counted, informational.
 *
 *   node test/harness/corruption.mjs       # HARNESS_TRIALS=60 HARNESS_SEED=…
 */
import { cp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '@stateflow/store-leveldb';
import { envInt, hashFiles, isMain, printReport, removeDir, rng, tempDir } from './lib.mjs';

const STREAMS = ['global', 'cwd:/w', 'session:a', 'session:b'];
const TRIAL = fileURLToPath(new URL('./corruption-trial.mjs', import.meta.url));
const DUMP = fileURLToPath(new URL('./corruption-dump.mjs', import.meta.url));
/** Data files of LevelDB; LOG/LOG.old (text diagnostics) and LOCK are not data. */
const isDataFile = (name) => name.endsWith('.ldb') || name.endsWith('.log') || name.startsWith('MANIFEST-') || name === 'CURRENT';
const isTargetFile = (name) => name.endsWith('.ldb') || name.endsWith('.log');

/** Populate `dir` with `transitions` deterministic transitions; some land in .ldb tables. */
async function populate(dir, transitions) {
  const store = await openStore(dir, { checkpointInterval: 8 });
  for (let i = 1; i <= transitions; i++) {
    const a = STREAMS[i % STREAMS.length];
    const b = STREAMS[(i * 7) % STREAMS.length];
    const changes = { [a]: { count: i, [`k${i % 23}`]: { i, text: `value ${i} `.repeat(1 + (i % 9)) } } };
    if (b !== a && i % 4 === 0) changes[b] = { shared: i, list: [i, i + 1] };
    await store.publish({ changes, meta: { i } });
  }
  await store.close();
}

/** Everything a reader can see: every transition and every retained state of every stream. */
async function snapshot(store) {
  const transitions = [];
  for await (const t of store.transitions()) transitions.push(JSON.stringify(t));
  const states = {};
  for (const stream of STREAMS) {
    const head = await store.head(stream);
    states[stream] = [];
    for (let r = head.origin; r <= head.rev; r++) states[stream].push(JSON.stringify(await store.stateAt(stream, r)));
  }
  return { lastSeq: store.lastSeq(), transitions, states };
}

/**
 * The logical key/value content of the LevelDB database in `dir` via raw classic-level, in a
 * child process: `{ entries: Map<keyHex, valueSha256>, error? }` (`error`: LevelDB refused to
 * open the files or stopped at a damaged block; `entries` is what it read before), or
 * `{ aborted }` when LevelDB aborted the process natively.
 */
function logicalDump(dir) {
  const child = spawnSync(process.execPath, [DUMP, dir], { encoding: 'utf8', maxBuffer: 1 << 27 });
  if (child.status !== 0 || child.signal) return { aborted: child.signal ?? `exit ${child.status}` };
  const out = JSON.parse(child.stdout.trim().split('\n').at(-1));
  return { entries: new Map(out.entries), error: out.error };
}

/** Keys added, removed or with a different value between two logical dumps, plus 1 if LevelDB's own verdict differs. */
function dumpDifferences(a, b) {
  let n = a.error === b.error ? 0 : 1;
  for (const [key, hash] of a.entries) if (b.entries.get(key) !== hash) n++;
  for (const key of b.entries.keys()) if (!a.entries.has(key)) n++;
  return n;
}

/**
 * Run `trials` corruption trials; returns the report.
 * @param {{ trials?: number, transitions?: number, flips?: number, seed?: number }} options
 */
export async function runCorruption(options = {}) {
  const { trials = 60, transitions = 400, flips = 3, seed = Date.now() } = options;
  const random = rng(seed);
  const report = {
    seed,
    trials: 0,
    detectedAtOpen: 0,
    detectedByAudit: 0,
    detectedByRead: 0,
    harmless: 0,
    silentWrong: 0,
    untypedErrors: 0,
    // What the store controls: logical content before/after a failed open.
    failedOpensCompared: 0,
    logicalDifferences: 0,
    failedOpensUnreadableRaw: 0,
    failedOpensAfterDumpAborts: 0,
    failedOpensPartialDump: 0,
    // LevelDB's own behaviour, informational.
    recoveryRewroteTrials: 0,
    recoveryRewroteFiles: 0,
    recoveryRewroteTables: 0,
    processAborts: 0,
    abortsAlsoInRawDump: 0,
    codes: {},
  };
  const pristine = await tempDir('corrupt-src');
  try {
    await populate(pristine, transitions);
    const store = await openStore(pristine);
    const oracleFile = path.join(pristine, '..', `${path.basename(pristine)}-oracle.json`);
    await writeFile(oracleFile, JSON.stringify(await snapshot(store)));
    await store.close();
    const targets = [];
    for (const name of (await readdir(pristine)).filter(isTargetFile)) {
      if ((await stat(path.join(pristine, name))).size > 0) targets.push(name);
    }
    for (let trial = 0; trial < trials; trial++) {
      const dir = await tempDir('corrupt');
      try {
        await cp(pristine, dir, { recursive: true });
        const file = path.join(dir, targets[Math.floor(random() * targets.length)]);
        const bytes = await readFile(file);
        for (let f = 0; f < flips; f++) bytes[Math.floor(random() * bytes.length)] ^= 1 + Math.floor(random() * 255);
        await writeFile(file, bytes);
        report.trials++;
        // The "before" dump reads a copy: its own LevelDB recovery must not touch the trial's files.
        const copy = `${dir}-before`;
        await cp(dir, copy, { recursive: true });
        const logicalBefore = logicalDump(copy);
        await removeDir(copy);
        const before = await hashFiles(dir, isDataFile);
        const child = spawnSync(process.execPath, [TRIAL, dir, oracleFile], { encoding: 'utf8', maxBuffer: 1 << 26 });
        if (child.status !== 0 || child.signal) {
          // Native code aborted the process (e.g. a LevelDB assertion on a damaged table).
          report.processAborts++;
          if (logicalBefore.aborted !== undefined) report.abortsAlsoInRawDump++;
          console.error(
            `trial ${trial} (${path.basename(file)}): process ended by ${child.signal ?? `exit ${child.status}`}` +
              `${logicalBefore.aborted !== undefined ? ' (the raw classic-level dump aborts too)' : ''}: ${child.stderr.trim().split('\n').at(-1)}`,
          );
          continue;
        }
        const out = JSON.parse(child.stdout.trim().split('\n').at(-1));
        report.untypedErrors += out.untyped.length > 0 ? 1 : 0;
        for (const code of out.codes) report.codes[code] = (report.codes[code] ?? 0) + 1;
        if (out.open !== 'ok') {
          if (out.open !== 'untyped') {
            report.detectedAtOpen++;
            report.codes[out.open] = (report.codes[out.open] ?? 0) + 1;
          }
          const after = await hashFiles(dir, isDataFile);
          const changed = [...before].filter(([name, hash]) => after.get(name) !== hash).map(([name]) => name);
          const added = [...after.keys()].filter((name) => !before.has(name));
          if (changed.length + added.length > 0) report.recoveryRewroteTrials++;
          report.recoveryRewroteFiles += changed.length + added.length;
          report.recoveryRewroteTables += changed.filter((name) => name.endsWith('.ldb')).length;
          if (logicalBefore.aborted !== undefined) {
            report.failedOpensUnreadableRaw++;
          } else {
            report.failedOpensCompared++;
            if (logicalBefore.error !== undefined) report.failedOpensPartialDump++;
            const logicalAfter = logicalDump(dir);
            // LevelDB's own recovery reorganised the damaged files; when plain classic-level
            // then aborts natively reading them, nothing can be compared (informational).
            if (logicalAfter.aborted !== undefined) report.failedOpensAfterDumpAborts++;
            const differences = logicalAfter.aborted === undefined ? dumpDifferences(logicalBefore, logicalAfter) : 0;
            report.logicalDifferences += differences;
            if (differences > 0) {
              console.error(
                `trial ${trial} (${path.basename(file)}): failed open (${out.open}) changed ${differences} key/values ` +
                  `(raw LevelDB before: ${logicalBefore.error ?? 'ok'}; after: ${logicalAfter.error ?? logicalAfter.aborted ?? 'ok'}); files changed [${changed}] added [${added}]`,
              );
            }
          }
        } else if (out.wrong.length > 0) {
          report.silentWrong++;
          console.error(
            `trial ${trial} (${path.basename(file)}): ${out.wrong.length} silent wrong reads (audit: ${out.auditProblems} problems ${JSON.stringify(out.codes.slice(0, 3))}): ${out.wrong.slice(0, 4).join('; ')}`,
          );
        } else if (out.auditProblems > 0) report.detectedByAudit++;
        else if (out.detected.length > 0) report.detectedByRead++;
        else report.harmless++;
      } finally {
        await removeDir(dir);
      }
    }
  } finally {
    await removeDir(pristine);
    await rm(`${pristine}-oracle.json`, { force: true });
  }
  return report;
}

/** Print the report table of {@link runCorruption}. */
export function printCorruption(report) {
  printReport(`corruption trials (seed ${report.seed})`, [
    ['trials', report.trials],
    ['detected at open', report.detectedAtOpen],
    ['detected by audit', report.detectedByAudit],
    ['detected by a read (audit clean)', report.detectedByRead],
    ['undetected but harmless', report.harmless],
    ['silent wrong reads (must be 0)', report.silentWrong, (v) => v === 0],
    ['untyped errors (must be 0)', report.untypedErrors, (v) => v === 0],
    ['failed opens with a logical dump before and after', report.failedOpensCompared],
    ['  of which raw LevelDB reports a damaged block (dump: all readable around it)', report.failedOpensPartialDump],
    ['key/value differences after a failed open (must be 0)', report.logicalDifferences, (v) => v === 0],
  ]);
  printReport('informational: LevelDB itself', [
    ['failed opens where the raw dump aborts natively (not compared)', report.failedOpensUnreadableRaw],
    ['failed opens where only the raw dump after recovery aborts natively (not compared)', report.failedOpensAfterDumpAborts],
    ['failed opens whose files LevelDB recovery rewrote physically', report.recoveryRewroteTrials],
    ['  files rewritten or added (log → table, MANIFEST, CURRENT)', report.recoveryRewroteFiles],
    ['  of which existing .ldb tables', report.recoveryRewroteTables],
    ['processes aborted natively inside LevelDB', report.processAborts],
    ['  of which the raw classic-level dump (scan, gets, seeks) aborts too', report.abortsAlsoInRawDump],
  ]);
  console.log(
    'note: every LevelDB open folds its .log into a table and writes a new MANIFEST/CURRENT (recovery), so files change\n' +
      '      physically even when the store then refuses to open; the stored key/values are what must not change.\n' +
      '      A damaged table can trip an assertion inside LevelDB (leveldb::ExtractUserKey) and SIGABRT the process:\n' +
      '      LevelDB native code, not the store. The raw dump of the same bytes (no Stateflow code) shows how often plain\n' +
      '      classic-level reads abort too; the others abort on the store\'s access pattern or in a LevelDB background\n' +
      '      compaction of the damaged table. Each trial runs in a child process, so an abort never hides a wrong read.',
  );
  console.log(`codes seen: ${JSON.stringify(report.codes)}`);
}

/** Sum of every must-be-zero counter. */
export function corruptionFailures(report) {
  return report.silentWrong + report.untypedErrors + report.logicalDifferences;
}

if (isMain(import.meta.url)) {
  const report = await runCorruption({ trials: envInt('HARNESS_TRIALS', 60), seed: envInt('HARNESS_SEED', Date.now()) });
  printCorruption(report);
  process.exitCode = corruptionFailures(report) === 0 ? 0 : 1;
}
