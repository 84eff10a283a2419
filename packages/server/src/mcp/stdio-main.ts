#!/usr/bin/env node
/**
 * `node dist/mcp/stdio-main.js --dir D [--global] [--cwd DIR] [--session ID] [--mode active|passive]`
 *
 * A minimal executable for the MCP stdio server (the `stateflow mcp` command of the CLI calls
 * {@link runMcpStdio} the same way). Opens the store at `--dir`, serves until stdin closes or
 * the process is signalled, then closes the store. Diagnostics go to stderr (stdout carries
 * the protocol).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { StateflowError, isStateflowError } from '@stateflow/core';
import { openStore } from '@stateflow/store';
import type { Selection } from '@stateflow/tools';
import { runMcpServer } from './mcp-server.js';

/** Parsed command-line options of the stdio server. */
export interface McpStdioArgs {
  dir: string;
  selection: Selection;
}

/**
 * Parses `--dir D [--global] [--cwd DIR] [--session ID] [--mode active|passive]`.
 * @throws StateflowError `USAGE` for a missing `--dir`, unknown options or a bad mode.
 */
export function parseMcpArgs(argv: string[]): McpStdioArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        global: { type: 'boolean' },
        cwd: { type: 'string' },
        session: { type: 'string' },
        mode: { type: 'string', default: 'active' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new StateflowError('USAGE', `${(err as Error).message}. Usage: --dir D [--global] [--cwd DIR] [--session ID] [--mode active|passive]`, {}, { cause: err });
  }
  if (values.dir === undefined) throw new StateflowError('USAGE', 'Missing --dir: the store directory.', {});
  if (values.mode !== 'active' && values.mode !== 'passive') {
    throw new StateflowError('USAGE', `--mode must be active or passive, got "${values.mode}".`, {});
  }
  const selection: Selection = { mode: values.mode };
  if (values.global === true) selection.global = true;
  // The cwd owner is named by an absolute directory: a relative --cwd is resolved here.
  if (values.cwd !== undefined) selection.cwd = path.resolve(values.cwd);
  if (values.session !== undefined) selection.session = values.session;
  return { dir: values.dir, selection };
}

/**
 * Opens the store and serves MCP over this process's stdio until stdin ends or SIGINT/SIGTERM,
 * then closes the server and the store.
 * @throws StateflowError `USAGE`, `INPUT_INVALID`, and the store's open errors.
 */
export async function runMcpStdio(argv: string[]): Promise<void> {
  const args = parseMcpArgs(argv);
  const store = await openStore(args.dir);
  let running;
  try {
    running = await runMcpServer({ store, selection: args.selection });
  } catch (err) {
    await store.close();
    throw err;
  }
  const server = running;
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    server.server.onclose = stop;
  });
  await server.close();
  await store.close();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMcpStdio(process.argv.slice(2)).catch((err: unknown) => {
    const body = isStateflowError(err) ? err.toJSON() : { code: 'INTERNAL', message: String(err), details: {} };
    process.stderr.write(`${JSON.stringify(body)}\n`);
    process.exitCode = 1;
  });
}
