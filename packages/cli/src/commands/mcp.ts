/**
 * `stateflow mcp`: MCP over stdio for the selected owners, as a client of the store's server
 * (server README "stdio as a client of the server"): it forwards every request to `/mcp` of the
 * server serving `--dir`, starting one in the background when none runs (and again when that
 * server stopped). Runs until stdin closes or the process is signalled. stdout carries the
 * protocol; diagnostics go to stderr. On a PostgreSQL store (`--store postgres://…`) it serves
 * MCP on the store itself: the database takes any number of writers.
 */
import type { Command } from 'commander';
import type { StateflowError } from '@stateflow/core';
import { positiveInt } from '../internal/arguments.js';
import { DEFAULT_IDLE_TIMEOUT_MS, ensureServer } from '../internal/background-server.js';
import type { CommandContext } from '../command-context.js';
import { withStore } from '../internal/store-access.js';

/** Register `mcp`. */
export function registerMcpCommand(program: Command, ctx: CommandContext): void {
  program
    .command('mcp')
    .description("serve read_state and patch_state over MCP stdio for the selected owners, through the store's server (started in the background when none runs)")
    .option('--idle-timeout <ms>', `idle timeout of a server this starts, in ms (default ${DEFAULT_IDLE_TIMEOUT_MS}: 15 minutes)`, positiveInt)
    .action(async (local: { idleTimeout?: number }, command: Command) => {
      const options = ctx.options(command);
      const { currentToolCall, mcpClientName, runMcpProxy, runMcpServer } = await import('@stateflow/server');
      const dir = options.dir;
      if (dir === null) {
        // PostgreSQL: many processes share the store, so this one serves MCP on it itself.
        // This process writes the store itself, so it stamps the writer (a server would).
        let served: Parameters<typeof mcpClientName>[0] | undefined;
        const writer = () => {
          const client = served === undefined ? undefined : mcpClientName(served);
          return { user: 'local', surface: 'mcp-stdio', ...(client === undefined ? {} : { client }), ...currentToolCall() };
        };
        await withStore(options, 'create', async (store) => {
          const running = await runMcpServer({ store, selection: options.selection });
          served = running.server;
          await untilStdinEnds(running.server);
          await running.close();
        }, { writer });
        return;
      }
      // What this found on the store's address is said on stderr (stdout carries the protocol).
      const ignored = (error: StateflowError): void => void ctx.io.stderr.write(`stateflow mcp: ${error.message}\n`);
      const connect = async () => {
        const server = await ensureServer(dir, {
          env: ctx.io.env,
          onIgnored: ignored,
          ...(local.idleTimeout === undefined ? {} : { idleTimeoutMs: local.idleTimeout }),
        });
        return { url: server.url, token: server.token };
      };
      const proxy = await runMcpProxy({ selection: options.selection, connect, onIgnoredServer: ignored });
      await untilStdinEnds(proxy.server);
      await proxy.close();
    });
}

/** Resolves when stdin ends, the process is signalled or the MCP connection closes. */
function untilStdinEnds(server: { onclose?: (() => void) | undefined }): Promise<void> {
  return new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    server.onclose = resolve;
  });
}
