/**
 * Shared helpers of the benchmarks: scale, machine description, timing, tables and
 * bench/RESULTS.md. Every figure a bench prints is a ratio against a baseline measured in the
 * same run (bench/RESULTS.md).
 */
import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const RESULTS = path.join(BENCH_DIR, 'RESULTS.md');

/** BENCH_SCALE multiplies every default size (default 1 = the sizes in bench/RESULTS.md). */
export const SCALE = Number(process.env.BENCH_SCALE ?? '1');
if (!(SCALE > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${process.env.BENCH_SCALE}`);

/** `n × SCALE`, rounded, at least `min`. */
export function scaled(n, min = 1) {
  return Math.max(min, Math.round(n * SCALE));
}

/** CPU model, cores, memory, Node version. */
export function machine() {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** Milliseconds taken by `fn` (awaited), from a monotonic clock. */
export async function time(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** The test kit's seeded PRNG (mulberry32), so runs pick the same random revisions. */
export { seededRandom as rng } from '@stateflow/test-kit';

export function tempDir(prefix) {
  return mkdtemp(path.join(tmpdir(), `stateflow-bench-${prefix}-`));
}

export function removeDir(dir) {
  return rm(dir, { recursive: true, force: true });
}

/** Total bytes of the regular files under `dir` (recursively). */
export async function dirBytes(dir) {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? await dirBytes(p) : (await stat(p)).size;
  }
  return total;
}

/** Format a number for a table: integers with separators, others with 3 significant digits. */
export function fmt(n) {
  if (typeof n !== 'number') return String(n);
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n) || Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  return n.toPrecision(3);
}

/** Render a Markdown table. */
export function markdownTable(headers, rows) {
  const all = [headers, ...rows.map((r) => r.map(fmt))];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  const line = (r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(headers), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...all.slice(1).map(line)].join('\n');
}

/**
 * Print one bench table and append it to bench/RESULTS.md with the machine, date and scale
 * (print only with BENCH_RESULTS=0).
 * @param {string} title
 * @param {string[]} headers
 * @param {Array<Array<string|number>>} rows
 * @param {string[]} notes lines printed under the table
 */
export async function report(title, headers, rows, notes = []) {
  const text = [
    `### ${title}`,
    '',
    `${new Date().toISOString()} · ${machine()} · BENCH_SCALE=${SCALE}`,
    '',
    markdownTable(headers, rows),
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
  console.log(text);
  // BENCH_RESULTS=0: print only (profiling runs, experiments).
  if (process.env.BENCH_RESULTS !== '0') await appendFile(RESULTS, `${text}\n`);
}

/** How many times a bench repeats each goal row; the row reports the median. */
export const REPEATS = 3;

/** Median of a list of numbers. */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB() {
  return process.resourceUsage().maxRSS / 1024;
}

/** The built `stateflow` command (`npm run build` first). */
export const BIN = path.resolve(BENCH_DIR, '../packages/cli/dist/bin.js');

/**
 * Spawn `stateflow serve` on store directory `dir` (a free port, no upstream model, `args` after
 * `serve`); resolves once it serves, with the child, its URL and its token (from the discovery
 * file). Its stderr is this process's.
 */
export async function serveStore(dir, args = []) {
  const child = spawn(process.execPath, [BIN, '--dir', dir, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' },
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /stateflow serving on (\S+)/.exec(out)?.[1];
      if (found !== undefined && out.includes('stop with Ctrl-C')) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const { token } = JSON.parse(await readFile(path.join(dir, 'stateflow-server.json'), 'utf8'));
  return { child, url, token };
}

/** SIGTERM a spawned server; resolves once it exited. */
export function stopServer(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}
