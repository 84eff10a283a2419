/**
 * kill -9 trials (test/harness/README.md): a writer child publishes with
 * durability 'fsync' and acknowledges each transition on stdout; we SIGKILL it at a random
 * moment, reopen the store, audit it, and check that every acknowledged transition is present
 * with the acknowledged hash. The same store is crashed `cycles` times before a fresh one.
 *
 *   node test/harness/kill9.mjs            # HARNESS_TRIALS=40 HARNESS_SEED=… to change
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore } from '@stateflow/store-leveldb';
import { envInt, isMain, printReport, removeDir, rng, tempDir } from './lib.mjs';

const WRITER = fileURLToPath(new URL('./kill9-writer.mjs', import.meta.url));

/**
 * Run the writer in `dir` until killed after a random delay; resolve with its acks.
 * @param {{ fsyncShare?: number, seed?: number, env?: Record<string, string> }} options the
 *   share of fsync publishes (default 1: all), the writer's seed, extra environment (a boot id)
 */
export function crashWriter(dir, concurrency, delayMs, options = {}) {
  return new Promise((resolve, reject) => {
    const args = [WRITER, dir, String(concurrency), String(options.fsyncShare ?? 1), String(options.seed ?? 1)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let out = '';
    let err = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!killed && out.includes('ready ')) {
        killed = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const acks = [];
      // Only complete lines count: a line cut by the kill was never fully acknowledged.
      for (const line of out.split('\n').slice(0, -1)) {
        const [kind, seq, hash, stream, n, durability] = line.split(' ');
        if (kind === 'ack') acks.push({ seq: Number(seq), hash, stream, n: Number(n), durability });
      }
      resolve({ acks, signal, code, stderr: err, started: out.includes('ready ') });
    });
  });
}

/**
 * Run `trials` kill -9 trials; returns the report. `cycles` crashes share one store directory.
 * @param {{ trials?: number, cycles?: number, concurrency?: number, maxDelayMs?: number, seed?: number }} options
 */
export async function runKill9(options = {}) {
  const { trials = 40, cycles = 5, concurrency = 2, maxDelayMs = 400, seed = Date.now() } = options;
  const random = rng(seed);
  const report = { seed, trials: 0, acknowledged: 0, lost: 0, hashMismatches: 0, auditFailures: 0, openFailures: 0, writerStartFailures: 0, inFlightKept: 0 };
  let dir = null;
  // The highest seq the store is known to hold (acknowledged or seen after a reopen).
  let known = 0;
  try {
    for (let trial = 0; trial < trials; trial++) {
      if (trial % cycles === 0) {
        if (dir) await removeDir(dir);
        dir = await tempDir('kill9');
        known = 0;
      }
      const run = await crashWriter(dir, concurrency, Math.floor(random() * maxDelayMs));
      report.trials++;
      if (!run.started) {
        report.writerStartFailures++;
        console.error(`trial ${trial}: writer did not start: ${run.stderr.trim()}`);
        continue;
      }
      report.acknowledged += run.acks.length;
      let store;
      try {
        store = await openStore(dir);
      } catch (err) {
        report.openFailures++;
        console.error(`trial ${trial}: reopen failed: ${err.code ?? ''} ${err.message}`);
        continue;
      }
      try {
        const audit = await store.audit();
        if (audit.problems.length > 0) {
          report.auditFailures++;
          console.error(`trial ${trial}: audit problems: ${JSON.stringify(audit.problems.slice(0, 3))}`);
        }
        const maxAcked = Math.max(known, ...run.acks.map((a) => a.seq));
        report.inFlightKept += Math.max(0, store.lastSeq() - maxAcked);
        known = store.lastSeq();
        for (const ack of run.acks) {
          let t;
          try {
            t = await store.transition(ack.seq);
          } catch {
            report.lost++;
            continue;
          }
          if (t.hash !== ack.hash || t.meta?.n !== ack.n) report.hashMismatches++;
        }
      } finally {
        await store.close();
      }
    }
  } finally {
    if (dir) await removeDir(dir);
  }
  return report;
}

/** Print the report table of {@link runKill9}. */
export function printKill9(report) {
  printReport(`kill -9 trials (seed ${report.seed})`, [
    ['trials', report.trials],
    ['acknowledged transitions', report.acknowledged],
    ['lost (must be 0)', report.lost, (v) => v === 0],
    ['hash/content mismatches (must be 0)', report.hashMismatches, (v) => v === 0],
    ['audit failures (must be 0)', report.auditFailures, (v) => v === 0],
    ['reopen failures (must be 0)', report.openFailures, (v) => v === 0],
    ['writer start failures (must be 0)', report.writerStartFailures, (v) => v === 0],
    ['unacknowledged but kept (in flight)', report.inFlightKept],
  ]);
}

if (isMain(import.meta.url)) {
  const report = await runKill9({ trials: envInt('HARNESS_TRIALS', 40), seed: envInt('HARNESS_SEED', Date.now()) });
  printKill9(report);
  process.exitCode = report.lost + report.hashMismatches + report.auditFailures + report.openFailures + report.writerStartFailures === 0 ? 0 : 1;
}
