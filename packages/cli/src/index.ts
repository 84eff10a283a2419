export { buildProgram, runCli, VERSION } from './program.js';
export { ExitCode, exitCodeFor } from './exit-codes.js';
export { CommandContext } from './internal/context.js';
export type { CliIo, CliOutput } from './internal/io.js';
export type { GlobalOptions, OwnerSelection } from './internal/options.js';
