/**
 * `stateflow stop`: stop the server serving `--dir` (started by hand or in the background by
 * `stateflow mcp`), found through the store directory's discovery file. It is sent SIGTERM, the
 * way Ctrl-C stops `stateflow serve`: calls in flight finish, watch streams end, the store is
 * closed and the discovery file removed.
 */
import type { Command } from 'commander';
import { StateflowError } from '@stateflow/core/errors';
import type { CommandContext } from '../command-context.js';
import { emit } from '../internal/output.js';
import { levelDir } from '../global-options.js';

/** How long a server may take to stop after SIGTERM, in ms. */
const STOP_TIMEOUT_MS = 15_000;

/** Register `stop`. */
export function registerStopCommand(program: Command, ctx: CommandContext): void {
  program
    .command('stop')
    .description('stop the stateflow server serving --dir (exit 0 also when none runs)')
    .action(async (_local: unknown, command: Command) => {
      const options = ctx.options(command);
      const dir = levelDir(options, 'stop', 'a server on PostgreSQL writes no discovery file; stop it with Ctrl-C or kill <pid> (its banner prints the pid).');
      const { findServer, processAlive } = await import('@stateflow/client/discovery');
      const server = await findServer(dir);
      if (server === null) {
        emit(ctx.io, options, { stopped: false, dir }, () => `no stateflow server serves ${dir}`);
        return;
      }
      process.kill(server.pid, 'SIGTERM');
      const deadline = Date.now() + STOP_TIMEOUT_MS;
      while (processAlive(server.pid)) {
        if (Date.now() > deadline) {
          throw new StateflowError('STORE_LOCKED', `The stateflow server pid ${server.pid} on ${server.url} did not stop within ${STOP_TIMEOUT_MS / 1000} s; kill it (kill -9 ${server.pid}).`, {
            dir,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      emit(ctx.io, options, { stopped: true, dir, pid: server.pid, url: server.url }, () => `stopped the stateflow server pid ${server.pid} on ${server.url}`);
    });
}
