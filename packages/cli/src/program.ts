/**
 * The `stateflow` command-line program (cli README "Commands"), built with commander. Exported so tests and
 * embedders can run it in-process with their own streams.
 */
import { Command } from 'commander';
import { registerAuditCommand } from './commands/audit.js';
import { registerBaselineCommand } from './commands/baseline.js';
import { registerCompactCommand } from './commands/compact.js';
import { registerDiffCommand } from './commands/diff.js';
import { registerExportCommand } from './commands/export.js';
import { registerForkCommand } from './commands/fork.js';
import { registerImportGitCommand } from './commands/import-git.js';
import { registerImportCommand } from './commands/import.js';
import { registerLadderCommand } from './commands/ladder.js';
import { registerLogCommand } from './commands/log.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerMergeCommand } from './commands/merge.js';
import { registerPatchCommand } from './commands/patch.js';
import { registerReadCommand } from './commands/read.js';
import { registerRecoverCommand } from './commands/recover.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerRevertCommand } from './commands/revert.js';
import { registerServeCommand } from './commands/serve.js';
import { registerShowCommand } from './commands/show.js';
import { registerStopCommand } from './commands/stop.js';
import { registerWatchCommand } from './commands/watch.js';
import { CommandContext } from './command-context.js';
import { failureExit } from './internal/failure.js';
import { processIo, type CliIo } from './cli-io.js';
import { addGlobalOptions } from './global-options.js';

/** The version `stateflow --version` prints. */
export const VERSION = '0.1.0';

/**
 * Build the `stateflow` program: global options (`--dir --global --cwd --session --mode --json`)
 * and every command. Commander's own exits and error output are turned off: failures reach
 * {@link runCli} as thrown errors.
 */
export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('stateflow')
    .description('Event-sourced JSON state for LLM agents: patch, read, time travel, audit.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      outputError: () => {},
    })
    .showSuggestionAfterError(true)
    // Set before the commands are added, which inherit it: `stateflow <command> --help` lists
    // the global options too.
    .configureHelp({ showGlobalOptions: true });
  addGlobalOptions(program);
  for (const register of [
    registerPatchCommand,
    registerReadCommand,
    registerBaselineCommand,
    registerLogCommand,
    registerShowCommand,
    registerDiffCommand,
    registerRevertCommand,
    registerForkCommand,
    registerMergeCommand,
    registerCompactCommand,
    registerAuditCommand,
    registerImportCommand,
    registerImportGitCommand,
    registerExportCommand,
    registerReplayCommand,
    registerRecoverCommand,
    registerServeCommand,
    registerMcpCommand,
    registerStopCommand,
    registerWatchCommand,
    registerLadderCommand,
  ]) {
    register(program, ctx);
  }
  return program;
}

/**
 * Run `stateflow` with `args` (the words after the command name) and return its exit code:
 * 0 success, 2 usage, 3 not found, 4 conflict, 5 corrupt, 1 anything else (`exit-codes.ts`).
 * Never throws; failures are reported on `io` (stderr, or stdout under `--json`).
 */
export async function runCli(args: readonly string[], io: CliIo = processIo()): Promise<number> {
  const ctx = new CommandContext(io);
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    const json = program.opts<{ json?: boolean }>().json === true || args.includes('--json');
    return failureExit(io, { json }, err);
  }
}
