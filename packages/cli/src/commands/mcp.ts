/**
 * `stateflow mcp`: MCP over stdio for the selected owners, as a client of the store's server
 * (server README "stdio as a client of the server"): it forwards every request to `/mcp` of the
 * server serving `--dir`, starting one in the background when none runs (and again when that
 * server stopped). Runs until stdin closes or the process is signalled. stdout carries the
 * protocol; diagnostics go to stderr.
 */
import type { Command } from 'commander';
import { positiveInt } from '../internal/arguments.js';
import { DEFAULT_IDLE_TIMEOUT_MS, ensureServer } from '../internal/background-server.js';
import type { CommandContext } from '../command-context.js';

/** Register `mcp`. */
export function registerMcpCommand(program: Command, ctx: CommandContext): void {
  program
    .command('mcp')
    .description("serve read_state and patch_state over MCP stdio for the selected owners, through the store's server (started in the background when none runs)")
    .option('--idle-timeout <ms>', `idle timeout of a server this starts, in ms (default ${DEFAULT_IDLE_TIMEOUT_MS}: 15 minutes)`, positiveInt)
    .action(async (local: { idleTimeout?: number }, command: Command) => {
      const options = ctx.options(command);
      const { runMcpProxy } = await import('@stateflow/server');
      const connect = async () => {
        const server = await ensureServer(options.dir, {
          env: ctx.io.env,
          ...(local.idleTimeout === undefined ? {} : { idleTimeoutMs: local.idleTimeout }),
        });
        return { url: server.url, token: server.token };
      };
      const proxy = await runMcpProxy({ selection: options.selection, connect });
      await new Promise<void>((resolve) => {
        process.stdin.once('end', resolve);
        process.stdin.once('close', resolve);
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        proxy.server.onclose = resolve;
      });
      await proxy.close();
    });
}
