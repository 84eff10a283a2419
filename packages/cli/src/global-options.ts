/**
 * Global options of `stateflow` and the owner selection they describe (cli README "Global
 * options"; DESIGN.md "Paths": owners are selected by the caller).
 */
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { nonEmpty } from './internal/arguments.js';
import type { CliIo } from './cli-io.js';

/** Owner selection, the shape `@stateflow/tools` `createRuntime` takes. */
export interface OwnerSelection {
  global?: true;
  /** Absolute directory of the cwd owner (stream `cwd:<dir>`). */
  cwd?: string;
  /** Session id (stream `session:<id>`). */
  session?: string;
  mode: 'active' | 'passive';
}

/** Resolved global options of one run. */
export interface GlobalOptions {
  /** Absolute store directory: `--dir`, else `$STATEFLOW_DIR`, else `./.stateflow`. */
  dir: string;
  /** `--json`: machine output on stdout, `{ error }` objects for failures. */
  json: boolean;
  /** Owners from `--global --cwd --session --mode`; with none given, `--cwd` is the current directory. */
  selection: OwnerSelection;
}

interface RawGlobals {
  dir?: string;
  json?: boolean;
  global?: boolean;
  cwd?: string;
  session?: string;
  mode?: 'active' | 'passive';
}

/** Declare the global options on the root program. */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--dir <dir>', 'store directory (default: $STATEFLOW_DIR or ./.stateflow)', nonEmpty('a directory'))
    .option('--global', 'select the global owner')
    .option('--cwd <dir>', 'select the cwd owner for this directory (default when no owner is given: the current directory)', nonEmpty('a directory'))
    .option('--session <id>', 'select the session owner with this id', nonEmpty('a session id'))
    .option('--mode <mode>', 'active or passive (response plane policy)', parseMode, 'active')
    .option('--json', 'machine output: JSON on stdout, {"error": …} on failure');
}

function parseMode(value: string): 'active' | 'passive' {
  if (value !== 'active' && value !== 'passive') {
    throw new InvalidArgumentError('use "active" or "passive".');
  }
  return value;
}

/** Resolve the global options seen by `command` (its own and its ancestors'). */
export function globalOptions(command: Command, io: CliIo): GlobalOptions {
  const raw = command.optsWithGlobals<RawGlobals>();
  const fromEnv = io.env['STATEFLOW_DIR'];
  const dir = path.resolve(io.cwd, raw.dir ?? (fromEnv === undefined || fromEnv === '' ? '.stateflow' : fromEnv));
  const selection: OwnerSelection = { mode: raw.mode ?? 'active' };
  if (raw.global === true) selection.global = true;
  if (raw.cwd !== undefined) selection.cwd = path.resolve(io.cwd, raw.cwd);
  if (raw.session !== undefined) selection.session = raw.session;
  if (selection.global === undefined && selection.cwd === undefined && selection.session === undefined) {
    selection.cwd = io.cwd;
  }
  return { dir, json: raw.json === true, selection };
}
