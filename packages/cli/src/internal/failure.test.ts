/**
 * The CLI's failure boundary fed the real errors of the libraries it translates: commander's
 * (by class and code) and Node's file system errors (by errno).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { StateflowError } from '@stateflow/core';
import type { CliIo } from '../cli-io.js';
import { failureExit } from './failure.js';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    stdin: process.stdin,
    env: {},
    cwd: process.cwd(),
  };
  return { io, out: () => out, err: () => err };
}

/** What commander itself throws for `args` (exits and output turned off, as the program does). */
async function commanderError(args: string[]): Promise<CommanderError> {
  const program = new Command('stateflow').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  program.command('read <path>').option('--limit <n>', 'a limit').action(() => {});
  program.command('ladder').command('run').action(() => {});
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err;
    throw err;
  }
  throw new Error(`commander accepted ${args.join(' ')}`);
}

describe('the failure boundary', () => {
  it("reports commander's usage errors as USAGE with commander's code, without its 'error: ' prefix", async () => {
    for (const [args, reason] of [
      [['read', 'x', '--nope'], 'commander.unknownOption'],
      [['read'], 'commander.missingArgument'],
      [['frobnicate'], 'commander.unknownCommand'],
    ] as const) {
      const err = await commanderError([...args]);
      expect(err.code).toBe(reason);
      expect(err.message.startsWith('error: ')).toBe(true);
      const { io, err: stderr } = capture();
      expect(failureExit(io, { json: false }, err)).toBe(2);
      expect(stderr()).toMatch(/^stateflow: [a-z].* Run "stateflow --help" for usage\. \[USAGE\]\n$/);
      expect(stderr()).not.toContain('error: ');
      const json = capture();
      failureExit(json.io, { json: true }, err);
      expect(JSON.parse(json.out())).toMatchObject({ error: { code: 'USAGE', details: { reason } } });
    }
  });

  it("takes commander's own exits as answered: --help and --version succeed, a group without a command is USAGE", async () => {
    const help = await commanderError(['--help']);
    expect(help.exitCode).toBe(0);
    const missing = await commanderError(['ladder']);
    expect(missing.code).toBe('commander.help');
    const { io, out, err } = capture();
    expect(failureExit(io, { json: false }, help)).toBe(0);
    expect(failureExit(io, { json: false }, missing)).toBe(2);
    expect(out() + err()).toBe('');
  });

  it('translates real file system errors by errno, naming the path', async () => {
    const missing = await readFile(path.join(process.cwd(), 'no-such-file.json')).catch((e: unknown) => e);
    const directory = await readFile(process.cwd()).catch((e: unknown) => e);
    const codes: string[] = [];
    for (const err of [missing, directory]) {
      const { io, out } = capture();
      const exit = failureExit(io, { json: true }, err);
      const { error } = JSON.parse(out()) as { error: { code: string; details: Record<string, unknown> } };
      codes.push(`${error.code}:${exit}`);
    }
    expect(codes).toEqual(['NOT_FOUND:3', 'USAGE:2']);
  });

  it('passes a StateflowError through and wraps anything else as INTERNAL', () => {
    const own = capture();
    expect(failureExit(own.io, { json: true }, new StateflowError('CONFLICT', 'stale', { stream: 'global', expected: 1, actual: 2 }))).toBe(4);
    expect(JSON.parse(own.out()).error).toEqual({ code: 'CONFLICT', message: 'stale', details: { stream: 'global', expected: 1, actual: 2 } });
    const foreign = capture();
    expect(failureExit(foreign.io, { json: true }, new TypeError('x is not a function'))).toBe(1);
    expect(JSON.parse(foreign.out()).error.code).toBe('INTERNAL');
  });
});
