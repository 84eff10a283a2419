/**
 * Corruption trials (issue 8, "Fault and fuzz harness"): populate a LevelDB store, record an
 * oracle of everything readable, close it; then per trial copy it, flip random bytes in one
 * of its LevelDB files (.ldb / .log), reopen, audit and read everything back. Each trial is
 *   detected               — open, audit or a read failed with a StateflowError / a problem;
 *   undetected but harmless — everything reads back equal to the oracle;
 *   silent wrong read       — a read returned something else without an error (must be 0).
 * A failed open must leave every data file's bytes as they were (hashed before and after).
 *
 *   node test/harness/corruption.mjs       # HARNESS_TRIALS=60 HARNESS_SEED=…
 */
import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isStateflowError } from '@stateflow/core';
import { openStore } from '@stateflow/store';
import { envInt, hashFiles, isMain, printReport, removeDir, rng, tempDir } from './lib.mjs';

const STREAMS = ['global', 'cwd:/w', 'session:a', 'session:b'];
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

/** Compare reads of the corrupted store with the oracle, one read at a time. */
async function classifyReads(store, oracle, tally) {
  const check = async (what, read, expected) => {
    try {
      const got = await read();
      if (got !== expected) {
        tally.wrong.push(what);
      }
    } catch (err) {
      if (isStateflowError(err)) tally.detected.push(`${what}: ${err.code}`);
      else tally.untyped.push(`${what}: ${String(err)}`);
    }
  };
  if (store.lastSeq() !== oracle.lastSeq) tally.wrong.push(`lastSeq ${store.lastSeq()} ≠ ${oracle.lastSeq}`);
  for (let seq = 1; seq <= oracle.lastSeq; seq++) {
    await check(`transition ${seq}`, async () => JSON.stringify(await store.transition(seq)), oracle.transitions[seq - 1]);
  }
  for (const stream of STREAMS) {
    const expected = oracle.states[stream];
    for (let r = 0; r < expected.length; r++) {
      await check(`stateAt ${stream}@${r}`, async () => JSON.stringify(await store.stateAt(stream, r)), expected[r]);
    }
    await check(`state ${stream}`, async () => JSON.stringify(await store.state(stream)), expected.at(-1));
  }
}

/**
 * Run `trials` corruption trials; returns the report.
 * @param {{ trials?: number, transitions?: number, flips?: number, seed?: number }} options
 */
export async function runCorruption(options = {}) {
  const { trials = 60, transitions = 400, flips = 3, seed = Date.now() } = options;
  const random = rng(seed);
  const report = { seed, trials: 0, detectedAtOpen: 0, detectedByAudit: 0, detectedByRead: 0, harmless: 0, silentWrong: 0, untypedErrors: 0, rewrittenByFailedOpen: 0, rewrittenTables: 0, codes: {} };
  const pristine = await tempDir('corrupt-src');
  try {
    await populate(pristine, transitions);
    const store = await openStore(pristine);
    const oracle = await snapshot(store);
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
        const before = await hashFiles(dir, isDataFile);
        let corrupted;
        try {
          corrupted = await openStore(dir);
        } catch (err) {
          if (isStateflowError(err)) {
            report.detectedAtOpen++;
            report.codes[err.code] = (report.codes[err.code] ?? 0) + 1;
          } else report.untypedErrors++;
          const after = await hashFiles(dir, isDataFile);
          const changed = [...before].filter(([name, hash]) => after.get(name) !== hash).map(([name]) => name);
          const added = [...after.keys()].filter((name) => !before.has(name));
          report.rewrittenByFailedOpen += changed.length;
          report.rewrittenTables += changed.filter((name) => name.endsWith('.ldb')).length;
          if (changed.length + added.length > 0) {
            console.error(`trial ${trial} (${path.basename(file)}): failed open (${err.code}) changed [${changed}] added [${added}]`);
          }
          continue;
        }
        const tally = { detected: [], wrong: [], untyped: [] };
        try {
          const audit = await corrupted.audit().catch((err) => {
            if (isStateflowError(err)) return { problems: [{ code: err.code }] };
            tally.untyped.push(String(err));
            return { problems: [] };
          });
          await classifyReads(corrupted, oracle, tally);
          report.untypedErrors += tally.untyped.length > 0 ? 1 : 0;
          if (tally.wrong.length > 0) {
            report.silentWrong++;
            console.error(
              `trial ${trial} (${path.basename(file)}): ${tally.wrong.length} silent wrong reads (audit: ${audit.problems.length} problems ${JSON.stringify(audit.problems.slice(0, 2))}): ${tally.wrong.slice(0, 4).join('; ')}`,
            );
          } else if (audit.problems.length > 0) report.detectedByAudit++;
          else if (tally.detected.length > 0) report.detectedByRead++;
          else report.harmless++;
          for (const p of audit.problems) report.codes[p.code] = (report.codes[p.code] ?? 0) + 1;
        } finally {
          await corrupted.close();
        }
      } finally {
        await removeDir(dir);
      }
    }
  } finally {
    await removeDir(pristine);
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
    ['data files rewritten by a failed open (must be 0)', report.rewrittenByFailedOpen, (v) => v === 0],
    ['  of which .ldb tables (the rest: LevelDB log/MANIFEST/CURRENT)', report.rewrittenTables, (v) => v === 0],
  ]);
  console.log(`codes seen: ${JSON.stringify(report.codes)}`);
}

if (isMain(import.meta.url)) {
  const report = await runCorruption({ trials: envInt('HARNESS_TRIALS', 60), seed: envInt('HARNESS_SEED', Date.now()) });
  printCorruption(report);
  process.exitCode = report.silentWrong + report.untypedErrors + report.rewrittenByFailedOpen === 0 ? 0 : 1;
}
