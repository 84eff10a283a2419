/**
 * The `stateflow` command-line program (cli README "Commands"), built with commander. Exported so tests and
 * embedders can run it in-process with their own streams.
 */
import { Command, CommanderError } from 'commander';
import { CommandContext } from './command-context.js';
import { processIo, type CliIo } from './cli-io.js';
import { addGlobalOptions } from './global-options.js';

/** The version `stateflow --version` prints. */
export const VERSION = '0.1.0';

/**
 * The command line (`stateflow import`, `stateflow ladder run`) of the command commander failed to
 * parse, for each of its errors: the message points to that command's own help.
 */
const failedCommand = new WeakMap<CommanderError, string>();

/** How a command module adds its command (and its subcommands) to the program. */
type Register = (program: Command, ctx: CommandContext) => void;

/**
 * Every command, in the order `stateflow --help` lists them, with the module that registers it:
 * loaded only when the command is registered.
 */
const COMMANDS: ReadonlyArray<readonly [name: string, load: () => Promise<Register>]> = [
  ['patch', async () => (await import('./commands/patch.js')).registerPatchCommand],
  ['read', async () => (await import('./commands/read.js')).registerReadCommand],
  ['baseline', async () => (await import('./commands/baseline.js')).registerBaselineCommand],
  ['log', async () => (await import('./commands/log.js')).registerLogCommand],
  ['show', async () => (await import('./commands/show.js')).registerShowCommand],
  ['diff', async () => (await import('./commands/diff.js')).registerDiffCommand],
  ['revert', async () => (await import('./commands/revert.js')).registerRevertCommand],
  ['fork', async () => (await import('./commands/fork.js')).registerForkCommand],
  ['merge', async () => (await import('./commands/merge.js')).registerMergeCommand],
  ['undo', async () => (await import('./commands/undo.js')).registerUndoCommand],
  ['tag', async () => (await import('./commands/tag.js')).registerTagCommand],
  ['shape', async () => (await import('./commands/shape.js')).registerShapeCommand],
  ['compact', async () => (await import('./commands/compact.js')).registerCompactCommand],
  ['retain', async () => (await import('./commands/retain.js')).registerRetainCommand],
  ['audit', async () => (await import('./commands/audit.js')).registerAuditCommand],
  ['import', async () => (await import('./commands/import.js')).registerImportCommand],
  ['import-git', async () => (await import('./commands/import-git.js')).registerImportGitCommand],
  ['export', async () => (await import('./commands/export.js')).registerExportCommand],
  ['replay', async () => (await import('./commands/replay.js')).registerReplayCommand],
  ['recover', async () => (await import('./commands/recover.js')).registerRecoverCommand],
  ['serve', async () => (await import('./commands/serve.js')).registerServeCommand],
  ['mcp', async () => (await import('./commands/mcp.js')).registerMcpCommand],
  ['stop', async () => (await import('./commands/stop.js')).registerStopCommand],
  ['watch', async () => (await import('./commands/watch.js')).registerWatchCommand],
  ['ladder', async () => (await import('./commands/ladder.js')).registerLadderCommand],
];

/**
 * Build the `stateflow` program: global options (`--dir --global --cwd --session --mode --json`)
 * and the commands. Commander's own exits and error output are turned off: failures reach
 * {@link runCli} as thrown errors.
 *
 * With `args`, a run's words, only the command they name is registered (its module, and each
 * module loads what its work needs — the store, the server, PostgreSQL, LangGraph — only when
 * it runs): a command starts without the code of the others. Words that name no
 * command (`--help`, `--version`, none, a mistyped one) register them all, for the help and
 * the "did you mean" suggestion; `--version` alone registers none. Without `args`, every command.
 */
export async function buildProgram(ctx: CommandContext, args?: readonly string[]): Promise<Command> {
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
  const chosen = args === undefined ? COMMANDS : commandsFor(program, args);
  for (const register of await Promise.all(chosen.map(([, load]) => load()))) register(program, ctx);
  rememberFailedCommand(program);
  return program;
}

/** The commands a run of `args` needs: the one they name, none for the version alone, else all. */
function commandsFor(program: Command, args: readonly string[]): ReadonlyArray<(typeof COMMANDS)[number]> {
  const named = commandWord(program, args);
  const command = COMMANDS.filter(([name]) => name === named);
  if (command.length > 0) return command;
  const versionOnly = named === undefined && args.some((arg) => arg === '--version' || arg === '-V') && !args.some((arg) => arg === '--help' || arg === '-h');
  return versionOnly ? [] : COMMANDS;
}

/**
 * The command `args` name: the first word that is neither an option nor the value of a global
 * option that takes one (`--dir DIR log` names `log`); `undefined` when there is none.
 */
function commandWord(program: Command, args: readonly string[]): string | undefined {
  const takesValue = new Set(program.options.filter((option) => option.required || option.optional).map((option) => option.long));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) return arg;
    if (takesValue.has(arg)) i++;
  }
  return undefined;
}

/** Record, for each error commander raises while parsing `command` or below, which command it was. */
function rememberFailedCommand(command: Command): void {
  command.exitOverride((err) => {
    failedCommand.set(err, commandLine(command));
    throw err;
  });
  for (const sub of command.commands) rememberFailedCommand(sub);
}

function commandLine(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Run `stateflow` with `args` (the words after the command name) and return its exit code:
 * 0 success, 2 usage, 3 not found, 4 conflict, 5 corrupt, 1 anything else (`exit-codes.ts`).
 * Never throws; failures are reported on `io` (stderr, or stdout under `--json`).
 */
export async function runCli(args: readonly string[], io: CliIo = processIo()): Promise<number> {
  const ctx = new CommandContext(io);
  const program = await buildProgram(ctx, args);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return ctx.exitCode;
  } catch (err) {
    const json = program.opts<{ json?: boolean }>().json === true || args.includes('--json');
    const help = err instanceof CommanderError ? failedCommand.get(err) : undefined;
    const { failureExit } = await import('./internal/failure.js');
    return failureExit(io, { json, ...(help === undefined ? {} : { help }) }, err);
  }
}
