/**
 * `stateflow export [--stream S]`: JSON Lines of transitions, oldest first, each with `prevHash`
 * and `hash`, so `stateflow replay` can rebuild and verify the store elsewhere. A lost log record
 * fails the export with STORE_CORRUPT (exit 5; store `transitions()` fails closed).
 */
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { withProgress } from '../internal/progress.js';
import { withStore } from '../internal/store-access.js';
import { isUnknownStream, unknownStreamMessage } from '../internal/known-stream.js';
import { writeLine } from '../internal/stream-output.js';

/** Register `export`. */
export function registerExportCommand(program: Command, ctx: CommandContext): void {
  program
    .command('export')
    .description('write every transition as JSON Lines to stdout (a full export can be replayed)')
    .option('--stream <stream>', 'only transitions that changed this stream (for reading; replay needs a full export)')
    .action(async (local: { stream?: string }, command: Command) => {
      const options = ctx.options(command);
      await withStore(options, 'existing', async (store) => {
        // Seqs rise to the last one, with or without --stream: the bar counts toward it.
        await withProgress(ctx.io, 'export', async (progress) => {
          for await (const transition of store.transitions(local.stream === undefined ? {} : { stream: local.stream })) {
            await writeLine(ctx.io.stdout, JSON.stringify(transition));
            progress.update(transition.seq);
          }
        }, { total: store.lastSeq() });
        if (local.stream !== undefined && (await isUnknownStream(store, local.stream))) {
          ctx.io.stderr.write(`stateflow: ${unknownStreamMessage(local.stream)}\n`);
        }
      });
    });
}
