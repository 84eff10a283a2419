export { buildProgram, runCli, VERSION } from './program.js';
export { ExitCode, exitCodeFor } from './exit-codes.js';
export { CommandContext } from './command-context.js';
export type { CliIo, CliOutput } from './cli-io.js';
export type { GlobalOptions, OwnerSelection } from './global-options.js';
