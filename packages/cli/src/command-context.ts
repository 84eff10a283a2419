/**
 * What every command registration receives from the program.
 */
import type { Command } from 'commander';
import type { ExitCode } from './exit-codes.js';
import type { CliIo } from './cli-io.js';
import { globalOptions, type GlobalOptions } from './global-options.js';

/** Shared state of one CLI run, handed to each command's registration. */
export class CommandContext {
  /** Exit code of a run whose command finished without throwing (e.g. audit with problems). */
  exitCode: ExitCode = 0;

  constructor(readonly io: CliIo) {}

  /** Resolved global options as seen by `command`. */
  options(command: Command): GlobalOptions {
    return globalOptions(command, this.io);
  }
}
