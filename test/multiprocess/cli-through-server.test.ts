/**
 * The CLI while a server holds the store: every store command run on a store that a spawned
 * `stateflow serve` holds gives the same output and exit code as on an identical store with no
 * server (a replay of the same export: same seqs, times and hashes), the publish lines included.
 * Commands that need the store alone say which process holds it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, stateflow, tempDir } from '../cli/helpers.js';
import { discovery, spawnServe, type ServeProcess } from './processes.js';

let root: string;
let local: string;
let served: string;
let server: ServeProcess | undefined;

beforeAll(async () => {
  root = await tempDir('cli-served');
  const origin = path.join(root, 'origin');
  const run = async (...args: string[]) => {
    const result = await stateflow(['--dir', origin, '--cwd', '/p', ...args]);
    expect(result.code, result.stderr).toBe(0);
  };
  await run('patch', '{"lazy": {"plan": ["a", "b"]}, "tactics": {"next": "write"}}');
  await run('patch', '{"lazy": {"plan": ["a", "b", "c"], "notes": {"x": 1}}}');
  await run('--global', 'patch', '{"global": {"strategy": {"style": "terse"}}}');
  await run('patch', '{"tactics": {"next": null}}');
  const exported = await stateflow(['--dir', origin, 'export'], { stdoutFile: path.join(root, 'origin.jsonl') });
  expect(exported.code).toBe(0);
  local = path.join(root, 'local');
  served = path.join(root, 'served');
  for (const dir of [local, served]) expect((await stateflow(['--dir', dir, 'replay', path.join(root, 'origin.jsonl')])).code).toBe(0);
  await writeFile(path.join(root, 'history.jsonl'), ['{"rev": 1, "doc": {"v": 1}}', '{"rev": 2, "doc": {"v": 2, "w": [1]}}', '{"rev": 3, "doc": {"v": 2, "w": [1]}}'].join('\n'));
  server = await spawnServe(served);
});

afterAll(async () => {
  await server?.stop();
  await removeDir(root);
});

/**
 * Output with what differs between two stores with equal contents made apart: times, hashes,
 * directories, and the request id the server stamps in a writer (a CLI writing itself has none).
 */
function normal(text: string): string {
  return text
    .replace(/,\s*"request":\s*"[0-9a-z]+-[0-9a-z]+"/g, '')
    .replaceAll(local, '<dir>')
    .replaceAll(served, '<dir>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/\b[0-9a-f]{64}\b/g, '<hash>');
}

/** The commands compared, in order (writes included: both stores take the same ones). */
const COMMANDS: string[][] = [
  ['read', 'cwd.lazy.plan'],
  ['read', 'cwd[2].lazy', 'effective.strategy', '--projection', 'keys'],
  ['--json', 'read', 'cwd.lazy.*'],
  ['read', 'cwd.lazy.missing'],
  ['--global', 'baseline'],
  ['baseline', '--json'],
  ['log'],
  ['log', '--stream', 'cwd:/p', '--json'],
  ['log', '--from', '2', '--limit', '1'],
  ['show', '2'],
  ['show', '99'],
  ['diff', 'cwd:/p', '0', '3'],
  ['diff', 'cwd:/nope', '0', '1'],
  ['patch', '{"lazy": {"done": true}}'],
  ['--json', 'patch', '{"lazy": {"done": true}}'],
  ['patch', '{"lazy": {"plan": {"bad": null}}, "nope": 1}'],
  ['revert', 'cwd:/p', '1'],
  ['--json', 'revert', 'cwd:/p', '1'],
  ['fork', 'cwd:/p', 'session:copy', '--at', '2'],
  ['fork', 'cwd:/p', 'session:copy'],
  ['import', '<root>/history.jsonl', '--stream', 'history:x', '--at', 'doc'],
  ['import', '<root>/history.jsonl', '--stream', 'history:x', '--at', 'doc'],
  ['audit'],
  ['--json', 'audit'],
  ['export'],
  ['export', '--stream', 'history:x'],
];

describe('the CLI on a store a server holds', () => {
  it('goes through the server (the discovery file names it)', async () => {
    const found = await discovery(served);
    expect(found.pid).toBe(server?.child.pid);
    // The store is locked by the server: a command could only succeed through it.
    const direct = await stateflow(['--dir', served, 'log', '--limit', '1']);
    expect(direct.code, direct.stderr).toBe(0);
  });

  it.each(COMMANDS.map((args) => [args.join(' '), args]))('%s: same output and exit code as without a server', async (_name, args) => {
    const withRoot = (args as string[]).map((arg) => arg.replace('<root>', root));
    const [a, b] = await Promise.all([
      stateflow(['--dir', local, '--cwd', '/p', ...withRoot]),
      stateflow(['--dir', served, '--cwd', '/p', ...withRoot]),
    ]);
    expect({ code: b.code, stdout: normal(b.stdout), stderr: normal(b.stderr) }).toEqual({ code: a.code, stdout: normal(a.stdout), stderr: normal(a.stderr) });
  });

  it('replay into the served directory names the server that holds it (exit 4)', async () => {
    const result = await stateflow(['--dir', served, 'replay', path.join(root, 'origin.jsonl')]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`pid ${server?.child.pid}`);
    expect(result.stderr).toContain('stateflow stop');
    expect(result.stderr).toContain('[STORE_LOCKED]');
  });
});
