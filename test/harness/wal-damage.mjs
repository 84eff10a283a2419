/**
 * Write-ahead-log and file damage trials (store README "Fail closed"): per trial a writer child
 * publishes with durability 'fsync' and is SIGKILLed (so its acknowledged transitions sit in
 * LevelDB's write-ahead log, as after a crash); then one kind of damage is applied — bytes
 * flipped anywhere before the log's last record (not its torn tail), the log deleted, or, after
 * a clean close (data flushed into tables), a table truncated, the MANIFEST deleted, CURRENT
 * garbled. Each trial then opens the store: it must either fail with STORE_CORRUPT naming the
 * file and offset, leaving every byte of the directory as it was, or open with every
 * acknowledged transition. A refused store is then recovered into a copy with `recoverStore`,
 * whose report must name every acknowledged transition the copy lacks.
 *
 *   node test/harness/wal-damage.mjs        # HARNESS_TRIALS=40 HARNESS_SEED=…
 */
import { createHash } from 'node:crypto';
import { readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openStore, recoverStore } from '@stateflow/store-leveldb';
import { crashWriter } from './kill9.mjs';
import { envInt, isMain, printReport, removeDir, rng, tempDir } from './lib.mjs';

const KINDS = ['flip', 'flips', 'delete-log', 'truncate-table', 'delete-manifest', 'garbage-current'];

/** Every file of `dir` (info log and LOCK included) → sha256. */
async function byteDump(dir) {
  const out = new Map();
  for (const name of (await readdir(dir)).sort()) out.set(name, createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex'));
  return out;
}

/** Start offset of the last physical record of a LevelDB log (32 KiB blocks, 7-byte headers). */
function lastRecordStart(log) {
  let pos = 0;
  let last = 0;
  while (pos + 7 <= log.length) {
    const left = 32_768 - (pos % 32_768);
    if (left < 7) {
      pos += left;
      continue;
    }
    last = pos;
    pos += 7 + (log[pos + 4] | (log[pos + 5] << 8));
  }
  return last;
}

const find = async (dir, test) => (await readdir(dir)).filter(test).sort().at(-1);

/** Apply one kind of damage to `dir`; returns a description. */
async function damage(dir, kind, random) {
  if (['truncate-table', 'delete-manifest', 'garbage-current'].includes(kind)) {
    await (await openStore(dir)).close(); // a clean close: the log's records move into a table
  }
  switch (kind) {
    case 'flip':
    case 'flips': {
      const name = await find(dir, (f) => f.endsWith('.log'));
      const file = path.join(dir, name);
      const bytes = await readFile(file);
      const end = lastRecordStart(bytes);
      if (end === 0) return null;
      const offsets = [];
      for (let i = 0; i < (kind === 'flip' ? 1 : 2 + Math.floor(random() * 4)); i++) {
        const at = Math.floor(random() * end);
        bytes[at] ^= 1 + Math.floor(random() * 255);
        offsets.push(at);
      }
      await writeFile(file, bytes);
      return `${name} bytes ${offsets.join(',')} of ${bytes.length}`;
    }
    case 'delete-log': {
      const name = await find(dir, (f) => f.endsWith('.log'));
      await rm(path.join(dir, name));
      return `${name} deleted`;
    }
    case 'truncate-table': {
      const name = await find(dir, (f) => f.endsWith('.ldb'));
      const size = (await readFile(path.join(dir, name))).length;
      await truncate(path.join(dir, name), Math.floor(size * random()));
      return `${name} truncated`;
    }
    case 'delete-manifest': {
      const name = await find(dir, (f) => f.startsWith('MANIFEST-'));
      await rm(path.join(dir, name));
      return `${name} deleted`;
    }
    case 'garbage-current':
      await writeFile(path.join(dir, 'CURRENT'), 'MANIFEST-9x\n');
      return 'CURRENT garbled';
  }
  throw new Error(`unknown kind ${kind}`);
}

/**
 * Run `trials` damage trials; returns the report.
 * @param {{ trials?: number, seed?: number, maxDelayMs?: number }} options
 */
export async function runWalDamage(options = {}) {
  const { trials = 40, seed = Date.now(), maxDelayMs = 400 } = options;
  const random = rng(seed);
  const report = {
    seed,
    trials: 0,
    acknowledged: 0,
    refused: 0,
    refusedNamingFile: 0,
    opened: 0,
    lost: 0,
    silentWrong: 0,
    filesRewrittenByFailedOpen: 0,
    untyped: 0,
    recovered: 0,
    recoveredClean: 0,
    lostNamed: 0,
    lostPossibly: 0,
    lostUnnamed: 0,
    kinds: {},
  };
  for (let trial = 0; trial < trials; trial++) {
    const dir = await tempDir('wal');
    try {
      const { acks } = await crashWriter(dir, 1 + Math.floor(random() * 2), 150 + Math.floor(random() * maxDelayMs));
      if (acks.length === 0) continue;
      const kind = KINDS[Math.floor(random() * KINDS.length)];
      const what = await damage(dir, kind, random);
      if (what === null) continue;
      report.trials++;
      report.acknowledged += acks.length;
      report.kinds[kind] = (report.kinds[kind] ?? 0) + 1;
      const before = await byteDump(dir);
      let store = null;
      let failure = null;
      try {
        store = await openStore(dir);
      } catch (err) {
        failure = err;
      }
      if (store !== null) {
        report.opened++;
        const seen = new Map();
        for await (const t of store.transitions()) seen.set(t.seq, t.hash);
        for (const ack of acks) {
          if (!seen.has(ack.seq)) report.lost++;
          else if (seen.get(ack.seq) !== ack.hash) report.silentWrong++;
        }
        await store.close();
        console.error(`trial ${trial} (${what}): opened`);
        continue;
      }
      if (failure?.name !== 'StateflowError') {
        report.untyped++;
        console.error(`trial ${trial} (${what}): untyped ${failure}`);
        continue;
      }
      report.refused += failure.code === 'STORE_CORRUPT' ? 1 : 0;
      if (typeof failure.details?.file === 'string' && typeof failure.details?.offset === 'number') report.refusedNamingFile++;
      const after = await byteDump(dir);
      for (const [name, hash] of before) if (after.get(name) !== hash) report.filesRewrittenByFailedOpen++;
      for (const name of after.keys()) if (!before.has(name)) report.filesRewrittenByFailedOpen++;
      // The way out: recover into a copy; every acknowledged seq the copy lacks must be named lost.
      const into = `${dir}-recovered`;
      try {
        const r = await recoverStore(dir, into);
        report.recovered++;
        if (r.problems.length === 0) report.recoveredClean++;
        const copy = await openStore(into, { createIfMissing: false });
        const kept = new Set();
        for await (const t of copy.transitions()) kept.add(t.seq);
        await copy.close();
        for (const ack of acks) {
          if (kept.has(ack.seq)) continue;
          if (r.lost.some(([first, last]) => ack.seq >= first && ack.seq <= last)) report.lostNamed++;
          else if (r.mayHaveLostAfter !== null && ack.seq > r.mayHaveLostAfter) report.lostPossibly++;
          else report.lostUnnamed++;
        }
      } catch (err) {
        console.error(`trial ${trial} (${what}): recovery failed: ${err?.code ?? ''} ${err?.message ?? err}`);
      } finally {
        await removeDir(into);
      }
    } finally {
      await removeDir(dir);
    }
  }
  return report;
}

/** Print the report table of {@link runWalDamage}. */
export function printWalDamage(report) {
  printReport(`write-ahead log and file damage trials (seed ${report.seed}; ${JSON.stringify(report.kinds)})`, [
    ['trials', report.trials],
    ['acknowledged transitions (fsync) before the damage', report.acknowledged],
    ['refused at open with STORE_CORRUPT', report.refused],
    ['  naming the file and byte offset', report.refusedNamingFile],
    ['opened (damage LevelDB would not lose data over)', report.opened],
    ['acknowledged transitions lost silently (must be 0)', report.lost, (v) => v === 0],
    ['silent wrong reads (must be 0)', report.silentWrong, (v) => v === 0],
    ['files changed by a failed open (must be 0)', report.filesRewrittenByFailedOpen, (v) => v === 0],
    ['untyped errors (must be 0)', report.untyped, (v) => v === 0],
    ['refused stores recovered into a copy', report.recovered],
    ['  copies that audit clean', report.recoveredClean],
    ['  acknowledged transitions missing from the copy, named lost by the report', report.lostNamed],
    ['  missing, reported as possibly lost (a file that held them is gone)', report.lostPossibly],
    ['  acknowledged transitions missing from the copy and not named (must be 0)', report.lostUnnamed, (v) => v === 0],
  ]);
}

/** Sum of every must-be-zero counter. */
export function walDamageFailures(report) {
  return report.lost + report.silentWrong + report.filesRewrittenByFailedOpen + report.untyped + report.lostUnnamed;
}

if (isMain(import.meta.url)) {
  const report = await runWalDamage({ trials: envInt('HARNESS_TRIALS', 40), seed: envInt('HARNESS_SEED', Date.now()) });
  printWalDamage(report);
  process.exitCode = walDamageFailures(report) === 0 ? 0 : 1;
}
