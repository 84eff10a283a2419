/**
 * Shared helpers of the fault and fuzz harness: report tables, seeded randomness, temp dirs,
 * and "am I the main module" for scripts that are both CLIs and libraries.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when `metaUrl` is the script node was started with. */
export function isMain(metaUrl) {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(metaUrl);
}

/** Print `rows` ([label, value, expectation?]) as an aligned table under `title`. */
export function printReport(title, rows) {
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [title, '-'.repeat(title.length)];
  for (const [label, value, must] of rows) {
    const verdict = must === undefined ? '' : must(value) ? '  ok' : '  FAIL';
    lines.push(`${label.padEnd(width)}  ${String(value).padStart(8)}${verdict}`);
  }
  console.log(lines.join('\n'));
}

/** Mulberry32: a small seeded PRNG so every harness run can be replayed from its seed. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer option from the environment, else `fallback`. */
export function envInt(name, fallback) {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : Number.parseInt(raw, 10);
}

/** A new temp directory with `prefix`; remove it with {@link removeDir}. */
export function tempDir(prefix) {
  return mkdtemp(path.join(tmpdir(), `stateflow-${prefix}-`));
}

export function removeDir(dir) {
  return rm(dir, { recursive: true, force: true });
}

/** sha256 of every regular file directly in `dir` whose name passes `filter`. */
export async function hashFiles(dir, filter = () => true) {
  const out = new Map();
  for (const name of (await readdir(dir)).sort()) {
    if (!filter(name)) continue;
    out.set(name, createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex'));
  }
  return out;
}
