/**
 * The program in-process (`runCli` with captured streams), for mistakes caught before any store
 * is opened: a usage error points to the help of the command that was mistyped (it pointed to
 * `stateflow --help` for every command), and a store location that is a URL of an unsupported
 * scheme is refused, naming the schemes supported, instead of being taken as a directory.
 */
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: process.stdin,
    env,
    cwd: '/nonexistent-cwd-for-tests',
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

describe('usage errors', () => {
  it("point to the failing command's own help", async () => {
    for (const [args, help] of [
      [['import', 'h.jsonl', '--stream', 'global', '--at', 'lazy.h', '--nope'], 'stateflow import --help'],
      [['log', '--from', '1.5'], 'stateflow log --help'],
      [['ladder', 'run', 'f.yaml'], 'stateflow ladder run --help'],
      [['show'], 'stateflow show --help'],
      [['frobnicate'], 'stateflow --help'],
    ] as const) {
      const result = await run([...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/\[USAGE\]\n$/);
      expect(result.stderr, args.join(' ')).toContain(`Run "${help}" for usage.`);
    }
  });
});

describe('store locations', () => {
  it('refuses a URL of another scheme (flag or environment) with USAGE { at, reason: url-scheme }', async () => {
    for (const [args, env, scheme] of [
      [['--store', 'mysql://root@db/app', '--json', 'log'], {}, 'mysql:'],
      [['--dir', 'sqlite://x', '--json', 'audit'], {}, 'sqlite:'],
      [['--json', 'log'], { STATEFLOW_STORE: 'mongodb://db/x' }, 'mongodb:'],
    ] as const) {
      const result = await run([...args], { ...env });
      expect(result.code, result.stdout).toBe(2);
      const { error } = JSON.parse(result.stdout) as { error: { code: string; details: unknown; message: string } };
      expect(error.code).toBe('USAGE');
      expect(error.details).toEqual({ at: scheme, reason: 'url-scheme' });
      expect(error.message).toContain('postgres://');
    }
  });
});
