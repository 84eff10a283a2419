/**
 * `stateflow replay <export.jsonl> --dir NEW` (or `--store postgres://…?schema=new`): rebuild a
 * store from a full export by appending every transition verbatim (same seq, time and hash),
 * verifying each hash, then auditing the result: a replay-based audit that runs on any machine
 * (DESIGN.md "Tamper evidence"). The store is built beside `--dir` (in a staging schema on
 * PostgreSQL) and moved into place only when every hash verified and the audit is clean: a
 * failed replay leaves the target exactly as it was.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { StateflowError, isJsonObject, isStateflowError } from '@stateflow/core';
import type { Store, Transition } from '@stateflow/store';
import type { CommandContext } from '../command-context.js';
import { atLine, countJsonLines, readJsonLines } from '../internal/json-lines.js';
import type { JsonLine } from '../internal/json-lines.js';
import { count, emit } from '../internal/output.js';
import { startProgress } from '../internal/progress.js';
import { withNewStore } from '../internal/store-access.js';

/** Result of a replay. */
interface ReplayReport {
  dir: string;
  transitions: number;
  lastSeq: number;
  /** Hash of the last transition (64 zeros for an empty export). */
  hash: string;
  /** Audit problems of the rebuilt store: always 0 (a replay with problems fails). */
  problems: number;
}

/** Register `replay`. */
export function registerReplayCommand(program: Command, ctx: CommandContext): void {
  program
    .command('replay')
    .description('rebuild a store in --dir or --store (new or empty) from a full export; every hash is verified and the store audited before the target is written')
    .argument('<export>', 'a file written by "stateflow export"')
    .action(async (source: string, _local: unknown, command: Command) => {
      const options = ctx.options(command);
      const file = path.resolve(ctx.io.cwd, source);
      const total = await countJsonLines(file);
      const report = await withNewStore(options.store, async (store): Promise<ReplayReport> => {
        const progress = startProgress(ctx.io, 'replay', total);
        let transitions = 0;
        let hash = '0'.repeat(64);
        try {
          for await (const batch of batches(readJsonLines(file))) {
            const lines = batch.map(({ line, value }) => ({ line, transition: asTransition(value, file, line) }));
            await appendBatch(store, lines, file);
            hash = (lines.at(-1) as { transition: Transition }).transition.hash;
            transitions += lines.length;
            progress.update(transitions);
          }
        } finally {
          progress.stop();
        }
        const audit = await store.audit();
        const first = audit.problems[0];
        if (first !== undefined) {
          throw new StateflowError(
            'STORE_CORRUPT',
            `The replayed store fails its audit with ${count(audit.problems.length, 'problem')} (first: ${first.code} ${first.key ?? ''}: ${first.detail}); nothing was written to ${options.storeLabel}.`,
            { detail: `${first.code}: ${first.detail}` },
          );
        }
        return { dir: options.storeLabel, transitions, lastSeq: store.lastSeq(), hash, problems: 0 };
      });
      emit(ctx.io, options, report, () =>
        `replayed ${count(report.transitions, 'transition')} into ${report.dir}: every hash verified, last hash ${report.hash}, audit clean`,
      );
    });
}

/** A batch of replay (one `appendMany`, one storage write): at most this many transitions, of at most this many characters of export in all. */
const BATCH_TRANSITIONS = 500;
const BATCH_CHARS = 4 * 1024 * 1024;

/** The lines of an export in batches of at most {@link BATCH_TRANSITIONS} and {@link BATCH_CHARS} (a longer line alone). */
async function* batches(lines: AsyncIterable<JsonLine>): AsyncIterable<JsonLine[]> {
  let batch: JsonLine[] = [];
  let chars = 0;
  for await (const line of lines) {
    if (batch.length > 0 && (batch.length === BATCH_TRANSITIONS || chars + line.chars > BATCH_CHARS)) {
      yield batch;
      batch = [];
      chars = 0;
    }
    batch.push(line);
    chars += line.chars;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Append one batch verbatim, then check every stored hash against the export. When the batch is
 * refused (it wrote nothing), its transitions are appended one at a time, which names the line at
 * fault (the store is new, and thrown away whole when the replay fails).
 * @throws the failure, with the file and line it came from
 */
async function appendBatch(store: Store, lines: { line: number; transition: Transition }[], file: string): Promise<void> {
  try {
    await store.appendMany(lines.map(({ transition }) => transition));
  } catch {
    for (const { line, transition } of lines) {
      try {
        await store.append(transition);
      } catch (err) {
        throw atLine(asVerificationFailure(err), file, line);
      }
    }
  }
  const first = (lines[0] as { transition: Transition }).transition.seq;
  let i = 0;
  for await (const stored of store.transitions({ from: first, to: first + lines.length - 1 })) {
    const { line, transition } = lines[i++] as { line: number; transition: Transition };
    if (stored.hash !== transition.hash) {
      throw atLine(new StateflowError('STORE_CORRUPT', `rebuilt hash ${stored.hash} differs from exported hash ${transition.hash}.`, { detail: `seq ${transition.seq}` }), file, line);
    }
  }
}

/**
 * A transition whose hash or hash link does not verify means the export was altered or damaged:
 * that is corruption (exit 5), not bad usage. Other append failures keep their code.
 */
function asVerificationFailure(err: unknown): unknown {
  if (!isStateflowError(err, 'INPUT_INVALID')) return err;
  const field = (err.details as { field?: unknown }).field;
  if (field === 'hash' || field === 'prevHash') {
    return new StateflowError(
      'STORE_CORRUPT',
      `${err.message}: the export was altered or damaged; export it again from the source store.`,
      { detail: String(field) },
      { cause: err },
    );
  }
  if (field === 'seq') {
    return new StateflowError(
      'INPUT_INVALID',
      `${err.message}: replay needs a full export (no --stream) of a store whose log starts at seq 1.`,
      err.details,
      { cause: err },
    );
  }
  return err;
}

function asTransition(value: unknown, file: string, line: number): Transition {
  if (!isJsonObject(value) || typeof value['seq'] !== 'number' || typeof value['hash'] !== 'string') {
    throw new StateflowError(
      'INPUT_INVALID',
      `Line ${line} of ${file} is not an exported transition (needs seq and hash): replay takes the output of "stateflow export".`,
      { field: `line ${line}`, reason: 'transition' },
    );
  }
  return value as unknown as Transition;
}
