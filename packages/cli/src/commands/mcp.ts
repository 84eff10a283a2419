/**
 * `stateflow mcp`: serve `read_state`, `patch_state` and the baseline resource over MCP stdio for
 * the selected owners (README "An agent over MCP"), through `@stateflow/server`'s `runMcpStdio`. Runs until stdin
 * closes or the process is signalled. stdout carries the protocol; diagnostics go to stderr.
 */
import { mkdir } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CommandContext } from '../internal/context.js';
import type { OwnerSelection } from '../internal/options.js';

/** Register `mcp`. */
export function registerMcpCommand(program: Command, ctx: CommandContext): void {
  program
    .command('mcp')
    .description('serve read_state and patch_state over MCP stdio for the selected owners (for an agent config)')
    .action(async (_local: unknown, command: Command) => {
      const options = ctx.options(command);
      await mkdir(options.dir, { recursive: true });
      const { runMcpStdio } = await import('@stateflow/server');
      await runMcpStdio(['--dir', options.dir, ...selectionArgs(options.selection)]);
    });
}

function selectionArgs(selection: OwnerSelection): string[] {
  return [
    ...(selection.global === true ? ['--global'] : []),
    ...(selection.cwd === undefined ? [] : ['--cwd', selection.cwd]),
    ...(selection.session === undefined ? [] : ['--session', selection.session]),
    '--mode',
    selection.mode,
  ];
}
