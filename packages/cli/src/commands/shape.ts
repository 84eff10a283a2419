/**
 * `stateflow shape set <name> --streams <pattern> --schema <file> [--upcast <file>] [--force]`,
 * `shape list`, `shape show <name> [version]`, `shape check <name> [version] [--all]`: versioned state
 * shapes (store README "Shapes"). A shape is a declaration on `stateflow:shapes`; `set` checks
 * every head of the family first, declares the next version and upgrades the heads.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ExitCode, StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject, UpcastOperation } from '@stateflow/core';
import type { CommandContext } from '../command-context.js';
import { positiveInt } from '../internal/arguments.js';
import { count, emit, table } from '../internal/output.js';
import { describePublish } from '../internal/publish-summary.js';
import { withStore } from '../internal/store-access.js';

interface SetFlags {
  streams: string;
  schema: string;
  upcast?: string;
  force?: boolean;
}

/** The JSON in `file`, which must be of the kind `want` says. */
async function jsonFile(file: string, what: string, want: 'object' | 'array'): Promise<unknown> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new StateflowError('INPUT_INVALID', `${what} ${file} does not hold JSON: ${(err as Error).message}`, { field: what }, { cause: err });
  }
  if (want === 'object' ? !isJsonObject(value) : !Array.isArray(value)) throw new StateflowError('INPUT_INVALID', `${what} ${file} must hold a JSON ${want}`, { field: what });
  return value;
}

/** Register `shape` and its subcommands. */
export function registerShapeCommand(program: Command, ctx: CommandContext): void {
  const shape = program.command('shape').description('versioned state shapes (a JSON Schema per stream family): shape set | list | show | check');
  shape
    .command('set')
    .description('declare the next version of a shape (checks every head first, then upgrades them); prints the version it made')
    .argument('<name>', 'the shape: [A-Za-z][A-Za-z0-9_.-]*')
    .requiredOption('--streams <pattern>', "the stream family, e.g. 'session:*' (fixed by version 1)")
    .requiredOption('--schema <file>', 'a JSON Schema 2020-12 file')
    .option('--upcast <file>', 'a JSON file holding the operations from the previous version')
    .option('--force', 'declare it even when a head would not validate (those heads refuse writes until repaired)')
    .action(async (name: string, flags: SetFlags, command: Command) => {
      const options = ctx.options(command);
      const schema = (await jsonFile(flags.schema, 'schema', 'object')) as JsonObject;
      const upcast = flags.upcast === undefined ? undefined : ((await jsonFile(flags.upcast, 'upcast', 'array')) as UpcastOperation[]);
      const { setShape } = await import('@stateflow/store');
      const out = await withStore(options, 'existing', (store) => setShape(store, name, { streams: flags.streams, schema, ...(upcast === undefined ? {} : { upcast }) }, { force: flags.force === true }));
      emit(ctx.io, options, { version: out.version, result: out.result, checked: out.checked.streams, failures: out.checked.failures.length, upgraded: out.upgraded }, () =>
        [
          `shape ${name} version ${out.version}: ${describePublish(out.result, 'that version is declared already; nothing published')}`,
          `checked ${count(out.checked.streams, 'stream')}${out.checked.failures.length > 0 ? ` (${out.checked.failures.length} forced through)` : ''}; upgraded ${count(out.upgraded.length, 'head')}`,
        ].join('\n'),
      );
    });
  shape
    .command('list')
    .description('list the shapes')
    .action(async (_flags: unknown, command: Command) => {
      const options = ctx.options(command);
      const { listShapes } = await import('@stateflow/store');
      const shapes = await withStore(options, 'existing', (store) => listShapes(store));
      emit(ctx.io, options, { shapes }, () =>
        shapes.length === 0 ? 'no shapes (stateflow shape set NAME --streams PATTERN --schema FILE declares one)' : table(['SHAPE', 'STREAMS', 'VERSION'], shapes.map((s) => [s.name, s.streams, String(s.versions.length)])),
      );
    });
  shape
    .command('show')
    .description('print a shape: every version, or one')
    .argument('<name>', 'the shape')
    .argument('[version]', 'only this version (a positional: --version is the program\'s)', positiveInt)
    .action(async (name: string, wanted: number | undefined, _flags: unknown, command: Command) => {
      const options = ctx.options(command);
      const { getShape } = await import('@stateflow/store');
      const found = await withStore(options, 'existing', (store) => getShape(store, name));
      if (wanted === undefined) return emit(ctx.io, options, found);
      const version = found.versions[wanted - 1];
      if (version === undefined) throw new StateflowError('SHAPE_NOT_FOUND', `Shape ${name} has no version ${wanted} (it has ${found.versions.length})`, { shape: name, version: wanted });
      emit(ctx.io, options, { name, streams: found.streams, ...version });
    });
  shape
    .command('check')
    .description('upcast every head of the family (--all: every retained revision) to the latest version and list what fails; exit 1 when any does')
    .argument('<name>', 'the shape')
    .argument('[version]', 'check this version instead of the latest', positiveInt)
    .option('--all', 'every retained revision, not only the heads')
    .action(async (name: string, version: number | undefined, flags: { all?: boolean }, command: Command) => {
      const options = ctx.options(command);
      const { checkShape } = await import('@stateflow/store');
      const report = await withStore(options, 'existing', (store) => checkShape(store, name, { all: flags.all === true, ...(version === undefined ? {} : { version }) }));
      const failures = report.failures.map((f) => ({ stream: f.stream, rev: f.rev, code: f.error.code, message: f.error.message, details: f.error.details }));
      emit(ctx.io, options, { ...report, failures }, () =>
        [
          `shape ${name} version ${report.version}: checked ${count(report.revisions, 'revision')} of ${count(report.streams, 'stream')}, ${count(failures.length, 'failure')}`,
          ...failures.map((f) => `${f.stream}@${f.rev}: ${f.message} [${f.code}]`),
        ].join('\n'),
      );
      if (failures.length > 0) ctx.exitCode = ExitCode.FAILURE;
    });
}

