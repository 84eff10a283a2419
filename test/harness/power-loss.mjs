/**
 * Crash-image trials of the crash policy (store README "Durability contract"): per trial a writer
 * child (`kill9-writer.mjs`) publishes with a mix of 'fsync' and 'buffered' durability and is
 * SIGKILLed, so its acknowledged transitions sit in LevelDB's write-ahead log; the log is then
 * damaged as a crash may leave it — cut inside its last record (a torn tail), or garbled (a byte
 * flipped, or a 4 KiB page zeroed) after the last synced record or before it — and the store is
 * opened either on the same boot (a process crash) or as after a reboot (the writer ran with
 * another `STATEFLOW_BOOT_ID`: an OS crash or power loss).
 *
 * Each open must either refuse with STORE_CORRUPT, leaving every byte of the directory as it was,
 * or open with every acknowledged transition — except, after a reboot, buffered ones from the seq
 * the store's notice names. An acknowledged transition missing without such a notice is lost
 * silently (must be 0); a synced one missing is lost (must be 0).
 *
 *   node test/harness/power-loss.mjs        # HARNESS_TRIALS=40 HARNESS_SEED=…
 */
import { createHash } from 'node:crypto';
import { readFile, readdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openStore } from '@stateflow/store-leveldb';
import { crashWriter } from './kill9.mjs';
import { envInt, isMain, printReport, removeDir, rng, tempDir } from './lib.mjs';

const KINDS = ['torn-tail', 'garble-after-synced', 'garble-before-synced'];

/** Every file of `dir` → sha256 (subdirectories by name only). */
async function byteDump(dir) {
  const out = new Map();
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    out.set(entry.name, entry.isFile() ? createHash('sha256').update(await readFile(path.join(dir, entry.name))).digest('hex') : 'dir');
  }
  return out;
}

/** Offsets of the physical records of a LevelDB log (32 KiB blocks, 7-byte headers), read independently of the store. */
function recordOffsets(log) {
  const offsets = [];
  let pos = 0;
  while (pos + 7 <= log.length) {
    const left = 32_768 - (pos % 32_768);
    if (left < 7) {
      pos += left;
      continue;
    }
    offsets.push(pos);
    pos += 7 + (log[pos + 4] | (log[pos + 5] << 8));
  }
  return offsets;
}

/**
 * The start of the batch (logical record: a FULL physical record, or FIRST and its fragments)
 * holding byte `at` of the log. One batch may hold several transitions (a group commit).
 */
function batchStart(log, offsets, at) {
  return offsets.findLast((offset) => offset <= at && (log[offset + 6] === 1 || log[offset + 6] === 2)) ?? -1;
}

/** The start of the batch holding the `L` key of `seq`, or -1. */
function batchOfSeq(log, offsets, seq) {
  const key = Buffer.alloc(9);
  key[0] = 0x4c;
  key.writeUIntBE(seq, 3, 6);
  const at = log.indexOf(key);
  return at < 0 ? -1 : batchStart(log, offsets, at);
}

/**
 * Damage the newest log of `dir` as `kind` says, only as the crash it stands for can: a process
 * crash tears only the write in flight (never an acknowledged one), a power loss only what was
 * never synced. `acked`: the last acknowledged seq; `lastSynced`: the last fsync-acknowledged one.
 * @returns a description, or `null` when this log has no place for that kind
 */
async function damage(dir, kind, { acked, lastSynced, reboot }, random) {
  const name = (await readdir(dir)).filter((f) => f.endsWith('.log')).sort().at(-1);
  const file = path.join(dir, name);
  const log = await readFile(file);
  const offsets = recordOffsets(log);
  if (offsets.length < 2) return null;
  const synced = lastSynced === 0 ? -1 : batchOfSeq(log, offsets, lastSynced);
  // The synced batch ends where the next batch starts: "after" damages from there on.
  const syncedEnd = synced < 0 ? 0 : (offsets.find((offset) => offset > synced && (log[offset + 6] === 1 || log[offset + 6] === 2)) ?? log.length);
  if (kind === 'torn-tail') {
    // Tear the last batch — only if it holds no acknowledged transition (a process crash) or
    // comes after the last synced one (a power loss).
    const start = batchStart(log, offsets, offsets.at(-1));
    if (start < 0 || (reboot ? start < syncedEnd : batchOfSeq(log, offsets, acked) >= start)) return null;
    const cut = start + 1 + Math.floor(random() * (log.length - start - 1));
    await truncate(file, cut);
    return `${name} cut at ${cut} of ${log.length} (the last batch, from ${start})`;
  }
  const [from, to] = kind === 'garble-after-synced' ? [syncedEnd, log.length] : [0, synced];
  if (to - from < 16) return null;
  const at = from + Math.floor(random() * (to - from));
  if (random() < 0.5) log[at] ^= 1 + Math.floor(random() * 255);
  else log.fill(0, at, Math.min(to, at + 4_096));
  await writeFile(file, log);
  return `${name} garbled at ${at} (synced through ${syncedEnd})`;
}

/**
 * Run `trials` crash-image trials (draws whose damage does not apply are drawn again, at most
 * `3 × trials` draws); returns the report.
 * @param {{ trials?: number, seed?: number, maxDelayMs?: number }} options
 */
export async function runPowerLoss(options = {}) {
  const { trials = 40, seed = Date.now(), maxDelayMs = 300 } = options;
  const random = rng(seed);
  const report = {
    seed,
    trials: 0,
    acknowledged: 0,
    acknowledgedSynced: 0,
    refused: 0,
    refusedChanged: 0,
    opened: 0,
    openedWithNotice: 0,
    lostNamed: 0,
    lostSilently: 0,
    syncedLost: 0,
    wrongHash: 0,
    untyped: 0,
    kinds: {},
  };
  // A draw that does not apply (too few acknowledgements, or no place for its damage) is drawn
  // again, up to three times the trials asked for, so a run counts `trials` applied trials.
  for (let trial = 0; report.trials < trials && trial < trials * 3; trial++) {
    const dir = await tempDir('power-loss');
    try {
      const reboot = random() < 0.5;
      const kind = KINDS[Math.floor(random() * KINDS.length)];
      const env = reboot ? { STATEFLOW_BOOT_ID: `harness-boot-before-${trial}` } : {};
      const { acks } = await crashWriter(dir, 1 + Math.floor(random() * 2), 100 + Math.floor(random() * maxDelayMs), { fsyncShare: 0.3, seed: seed + trial, env });
      if (acks.length < 2) continue;
      const lastSynced = Math.max(0, ...acks.filter((a) => a.durability === 'fsync').map((a) => a.seq));
      const acked = Math.max(...acks.map((a) => a.seq));
      const what = await damage(dir, kind, { acked, lastSynced, reboot }, random);
      if (what === null) continue;
      const label = `${kind}${reboot ? ' after a reboot' : ''}`;
      report.trials++;
      report.kinds[label] = (report.kinds[label] ?? 0) + 1;
      report.acknowledged += acks.length;
      report.acknowledgedSynced += acks.filter((a) => a.durability === 'fsync').length;
      const before = await byteDump(dir);
      let store;
      try {
        store = await openStore(dir);
      } catch (err) {
        if (err?.name !== 'StateflowError') {
          report.untyped++;
          console.error(`trial ${trial} (${label}, ${what}): untyped ${err}`);
          continue;
        }
        report.refused += err.code === 'STORE_CORRUPT' ? 1 : 0;
        const after = await byteDump(dir);
        if (after.size !== before.size || [...before].some(([name, hash]) => after.get(name) !== hash)) report.refusedChanged++;
        console.error(`trial ${trial} (${label}, ${what}): refused ${err.code}`);
        continue;
      }
      try {
        report.opened++;
        const notice = store.notices.find((n) => n.code === 'BUFFERED_TRANSITIONS_LOST');
        if (notice !== undefined) report.openedWithNotice++;
        const seen = new Map();
        for await (const t of store.transitions()) seen.set(t.seq, t.hash);
        for (const ack of acks) {
          if (seen.has(ack.seq)) {
            if (seen.get(ack.seq) !== ack.hash) report.wrongHash++;
            continue;
          }
          if (ack.durability === 'fsync') report.syncedLost++;
          if (notice !== undefined && ack.durability === 'buffered' && ack.seq >= notice.details.fromSeq) report.lostNamed++;
          else report.lostSilently++;
        }
        console.error(`trial ${trial} (${label}, ${what}): opened at ${store.lastSeq()}${notice === undefined ? '' : `, lost from ${notice.details.fromSeq}`}`);
      } finally {
        await store.close();
      }
    } finally {
      await removeDir(dir);
    }
  }
  return report;
}

/** Print the report table of {@link runPowerLoss}. */
export function printPowerLoss(report) {
  printReport(`crash-image trials: process crash and power loss (seed ${report.seed}; ${JSON.stringify(report.kinds)})`, [
    ['trials', report.trials],
    ['acknowledged transitions', report.acknowledged],
    ['  of them synced (fsync)', report.acknowledgedSynced],
    ['refused at open with STORE_CORRUPT', report.refused],
    ['refused opens that changed a byte (must be 0)', report.refusedChanged, (v) => v === 0],
    ['opened', report.opened],
    ['  with a notice of buffered transitions lost', report.openedWithNotice],
    ['acknowledged buffered transitions lost to a power loss, named by the notice', report.lostNamed],
    ['acknowledged transitions lost silently (must be 0)', report.lostSilently, (v) => v === 0],
    ['synced transitions lost (must be 0)', report.syncedLost, (v) => v === 0],
    ['transitions read back with another hash (must be 0)', report.wrongHash, (v) => v === 0],
    ['untyped errors (must be 0)', report.untyped, (v) => v === 0],
  ]);
}

/** Sum of every must-be-zero counter. */
export function powerLossFailures(report) {
  return report.refusedChanged + report.lostSilently + report.syncedLost + report.wrongHash + report.untyped;
}

if (isMain(import.meta.url)) {
  const report = await runPowerLoss({ trials: envInt('HARNESS_TRIALS', 40), seed: envInt('HARNESS_SEED', Date.now()) });
  printPowerLoss(report);
  process.exitCode = powerLossFailures(report) === 0 ? 0 : 1;
}
