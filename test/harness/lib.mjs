/**
 * Shared helpers of the fault and fuzz harness: report tables, seeded randomness, temp dirs,
 * and "am I the main module" for scripts that are both CLIs and libraries.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
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

/** The test kit's seeded PRNG, so every harness run can be replayed from its seed. */
export { seededRandom as rng } from '@stateflow/test-kit';

/** Integer option from the environment, else `fallback`. */
export function envInt(name, fallback) {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : Number.parseInt(raw, 10);
}

/** A new temp directory `stateflow-<prefix>-…`, and its removal (the test kit's). */
export { removeDir, tempDir } from '@stateflow/test-kit';

/** sha256 of every regular file directly in `dir` whose name passes `filter`. */
export async function hashFiles(dir, filter = () => true) {
  const out = new Map();
  for (const name of (await readdir(dir)).sort()) {
    if (!filter(name)) continue;
    out.set(name, createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex'));
  }
  return out;
}
