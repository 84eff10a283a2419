/**
 * Helpers for the CLI end-to-end tests: spawn the BUILT `stateflow` bin against temporary
 * directories on disk, and locate the shared real histories.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { jsonEqual, type JsonObject } from '@stateflow/core';

/** The repository root (two levels above this file). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built CLI entry point. */
export const BIN = path.join(REPO_ROOT, 'packages/cli/dist/bin.js');
/** The shared real histories (never copied into the repo). */
export const HISTORIES = path.resolve(REPO_ROOT, '../shared/data/histories');

/** What one run of the bin produced. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link stateflow}. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Text written to the child's stdin (stdin is closed either way). */
  input?: string;
  /** Write stdout to this file instead of collecting it (for large exports). */
  stdoutFile?: string;
}

/** Run `node packages/cli/dist/bin.js ...args` and collect its exit code and output. */
export function stateflow(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return runProcess(process.execPath, [BIN, ...args], options);
}

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (extra['STATEFLOW_DIR'] === undefined) delete env['STATEFLOW_DIR'];
  if (extra['STATEFLOW_STORE'] === undefined) delete env['STATEFLOW_STORE'];
  return env;
}

/** Run any command; resolves with its exit code and output (never rejects on a non-zero exit). */
export async function runProcess(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const { createWriteStream } = await import('node:fs');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: childEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const sink = options.stdoutFile === undefined ? null : createWriteStream(options.stdoutFile);
    // Decode as streams: a multi-byte UTF-8 character split across two chunks must not turn
    // into two U+FFFD (large outputs with non-ASCII text arrive in load-dependent chunk sizes).
    child.stderr.setEncoding('utf8');
    if (sink !== null) child.stdout.pipe(sink);
    else {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => (stdout += chunk));
    }
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const done = () => resolve({ code: code ?? -1, stdout, stderr });
      if (sink === null) done();
      else sink.close(done);
    });
    // A child that exits without reading stdin closes the pipe first; its exit status is what counts.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(options.input ?? '');
  });
}

export { removeDir, tempDir } from '@stateflow/test-kit';

/**
 * The code of block `name` of a README (the root one unless `readme` names another, relative to
 * the repository root): the ```language fence between `<!-- name:begin … -->` and
 * `<!-- name:end -->` (the READMEs' examples are run by the tests that read them).
 * @throws Error when the README has no such block
 */
export async function readmeBlock(name: string, language = 'sh', readme = 'README.md'): Promise<string> {
  const text = await readFile(path.join(REPO_ROOT, readme), 'utf8');
  const fence = '```';
  const found = new RegExp(`<!-- ${name}:begin[^>]*-->\\s*${fence}${language}\\n([\\s\\S]*?)${fence}\\s*<!-- ${name}:end -->`).exec(text)?.[1];
  if (found === undefined) throw new Error(`${readme} has no ${name} block (a ${fence}${language} fence between <!-- ${name}:begin --> and <!-- ${name}:end -->)`);
  return found;
}

/** Parse stdout of a `--json` run. */
export function json(result: RunResult): unknown {
  return JSON.parse(result.stdout) as unknown;
}

/** The result of a run that must succeed (exit 0; stderr is the message otherwise). */
export function expectOk(result: RunResult): RunResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** The `{error}` object of a failed `--json` run (its only member), after checking the exit code. */
export function jsonError(result: RunResult, exitCode: number): { code: string; message: string; details: unknown } {
  expect(result.code, result.stdout + result.stderr).toBe(exitCode);
  const parsed = json(result) as { error: { code: string; message: string; details: unknown } };
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

/** Parse JSON Lines. */
export function jsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/**
 * Whether the shared histories are present. Absent: the caller skips with a visible warning;
 * absent under CI=true: this throws, so the suite fails instead of silently skipping.
 */
export function historiesAvailable(files: string[]): boolean {
  const missing = files.map((file) => path.join(HISTORIES, file)).filter((file) => !existsSync(file));
  if (missing.length === 0) return true;
  if (process.env['CI'] === 'true') {
    throw new Error(`Real histories are missing under CI: ${missing.join(', ')}`);
  }
  console.warn(`SKIPPED: real histories not found: ${missing.join(', ')} (expected beside the checkout in ../shared/data/histories)`);
  return false;
}

/** SIGTERM a server and resolve with its exit code. */
export function stopServe(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/**
 * Start `stateflow serve` with `args` (in `cwd`, default the repository root); resolves with the
 * child, everything it printed up to "stop with Ctrl-C", and what it wrote to stderr by then.
 */
export function startServe(args: string[], env: Record<string, string>, cwd = REPO_ROOT): Promise<{ child: ChildProcessWithoutNullStreams; banner: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '', ...env } });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('stop with Ctrl-C\n')) resolve({ child, banner: out, stderr: err });
    });
    child.stderr.on('data', (chunk: string) => (err += chunk));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

/** The recorded history reduced to distinct consecutive documents: revision k = docs[k - 1]. */
export interface Expected {
  docs: JsonObject[];
  /** Line numbers (rev) of documents equal to the previous one. */
  skippedRevs: number[];
}

export async function loadExpected(file: string): Promise<Expected> {
  const docs: JsonObject[] = [];
  const skippedRevs: number[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const { rev, doc } = JSON.parse(line) as { rev: number; doc: JsonObject };
    const previous = docs[docs.length - 1];
    if (previous !== undefined && jsonEqual(previous, doc)) skippedRevs.push(rev);
    else docs.push(doc);
  }
  return { docs, skippedRevs };
}
