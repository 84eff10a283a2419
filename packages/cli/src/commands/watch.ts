/**
 * `stateflow watch [--from SEQ] [--stream ID]…`: one JSON line per transition as it is accepted
 * (server README "Watch"), after the retained ones from SEQ on (inclusive, as `stateflow log
 * --from SEQ` lists them; the HTTP watch's own `from` means "after SEQ"), from the store's server — started in the background when none runs,
 * as `stateflow mcp` does, so the watcher never locks other processes out. Reconnects resume
 * after the last seq printed (`Last-Event-ID`): no line is missed or printed twice. When the
 * server is stopped on purpose (`stateflow stop`, SIGTERM) the watch ends (exit 0) instead of
 * starting a new server; a server that dies is replaced, as for `stateflow mcp`.
 * A PostgreSQL store is watched directly (the store's LISTEN/NOTIFY watch).
 */
import type { Command } from 'commander';
import { nonNegativeInt, nonEmpty } from '../internal/arguments.js';
import { ensureServer } from '../internal/background-server.js';
import type { CommandContext } from '../command-context.js';
import { withStore } from '../internal/store-access.js';
import { writeLine } from '../internal/stream-output.js';

interface WatchOptions {
  from?: number;
  stream: string[];
}

/** Register `watch`. */
export function registerWatchCommand(program: Command, ctx: CommandContext): void {
  program
    .command('watch')
    .description('print each transition as one JSON line as it is accepted (through the store\'s server; Ctrl-C to stop)')
    .option('--from <seq>', 'first print the retained transitions from this seq on (inclusive, as in stateflow log), then new ones (default: only new ones)', nonNegativeInt)
    .option('--stream <id>', 'only transitions that changed this stream (repeat for several)', collect, [])
    .action(async (local: WatchOptions, command: Command) => {
      const options = ctx.options(command);
      const stop = new AbortController();
      const onSignal = (): void => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        // The store's and the server's `from` mean "after": the seq before the first one printed.
        const from = local.from === undefined ? {} : { from: Math.max(0, local.from - 1) };
        const streams = local.stream.length === 0 ? {} : { streams: local.stream };
        const dir = options.dir;
        if (dir === null) {
          // PostgreSQL: many processes share the store, so this one watches it itself (LISTEN/NOTIFY).
          await withStore(options, 'existing', async (store) => {
            for await (const transition of store.watch({ signal: stop.signal, ...from, ...streams })) await writeLine(ctx.io.stdout, JSON.stringify(transition));
          });
          return;
        }
        // Watching reads: like every reading command, it never creates a store at a mistyped --dir.
        await withStore(dir, 'existing', async () => undefined);
        const { watchTransitions } = await import('@stateflow/client');
        const connect = async () => {
          const server = await ensureServer(dir, { env: ctx.io.env });
          return { url: server.url, token: server.token };
        };
        for await (const event of watchTransitions(connect, {
          signal: stop.signal,
          ...from,
          ...streams,
          onServerStop: 'end',
          onDisconnect: (err) => ctx.io.stderr.write(`stateflow: watch: ${err.message} (reconnecting)\n`),
        })) {
          await writeLine(ctx.io.stdout, JSON.stringify(event));
        }
        if (!stop.signal.aborted) ctx.io.stderr.write('stateflow: watch: the server was stopped; watch ended\n');
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, nonEmpty('a stream id')(value)];
}
