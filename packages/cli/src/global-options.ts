/**
 * Global options of `stateflow` and the owner selection they describe (cli README "Global
 * options"; DESIGN.md "Paths": owners are selected by the caller).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { StateflowError } from '@stateflow/core/errors';
import { isPostgresUrl, parseTarget, storeLocationKind } from '@stateflow/store-postgres/location';
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
  /**
   * Where the store is: a `postgres://` URL or an absolute LevelDB directory. `--store`, else
   * `--dir`, else `$STATEFLOW_STORE`, else `$STATEFLOW_DIR`, else `./.stateflow` (cli README
   * "Global options"). A location that is not a URL is a directory; a URL of a scheme other than
   * `postgres:`/`postgresql:` is refused.
   */
  store: string;
  /** The LevelDB directory of {@link GlobalOptions.store}; `null` when the store is PostgreSQL. */
  dir: string | null;
  /** {@link GlobalOptions.store} for messages and banners: the directory, or the URL without its password. */
  storeLabel: string;
  /** `--json`: machine output on stdout, `{ error }` objects for failures. */
  json: boolean;
  /** Owners from `--global --cwd --session --mode`; with none given, `--cwd` is the current directory. */
  selection: OwnerSelection;
  /** `--read-replica` URLs (repeatable): hot standbys of a PostgreSQL store that serve its historical reads (store-postgres README "Read replicas"). */
  readReplicas: string[];
}

interface RawGlobals {
  store?: string;
  readReplica?: string[];
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
    .option('--store <location>', 'the store: a postgres:// URL or a LevelDB directory (default: $STATEFLOW_STORE, else --dir)', nonEmpty('a store URL or directory'))
    .option('--dir <dir>', 'LevelDB store directory (default: $STATEFLOW_DIR or ./.stateflow)', nonEmpty('a directory'))
    .option('--read-replica <url>', 'a hot standby of the PostgreSQL store that serves its historical reads (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
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

/**
 * Resolve the global options seen by `command` (its own and its ancestors').
 * @throws USAGE when both `--store` and `--dir` are given, `--dir` is a PostgreSQL URL, the
 *   location is a URL of another scheme (`mysql://…`, `{ at: 'mysql:', reason: 'url-scheme' }`),
 *   or `--read-replica` is not a PostgreSQL URL or is given for a LevelDB store; USAGE `{ dir }`
 *   when the store's directory is a file
 */
export function globalOptions(command: Command, io: CliIo): GlobalOptions {
  const raw = command.optsWithGlobals<RawGlobals>();
  if (raw.store !== undefined && raw.dir !== undefined) {
    throw new StateflowError('USAGE', 'Give --store or --dir, not both (--dir is a LevelDB directory; --store takes a postgres:// URL or a directory).', {});
  }
  if (raw.dir !== undefined && isPostgresUrl(raw.dir)) {
    throw new StateflowError('USAGE', `--dir is a LevelDB directory; give the PostgreSQL URL with --store ${raw.dir}`, {});
  }
  const env = (name: string): string | undefined => (io.env[name] === '' ? undefined : io.env[name]);
  const location = raw.store ?? raw.dir ?? env('STATEFLOW_STORE') ?? env('STATEFLOW_DIR') ?? '.stateflow';
  const dir = storeLocationKind(location) === 'postgres' ? null : path.resolve(io.cwd, location);
  if (dir !== null && statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new StateflowError('USAGE', `The store ${dir} is a file, not a directory: pass --dir (or set STATEFLOW_DIR) to a store directory; stateflow creates a missing one.`, { dir });
  }
  const selection: OwnerSelection = { mode: raw.mode ?? 'active' };
  if (raw.global === true) selection.global = true;
  if (raw.cwd !== undefined) selection.cwd = path.resolve(io.cwd, raw.cwd);
  if (raw.session !== undefined) selection.session = raw.session;
  if (selection.global === undefined && selection.cwd === undefined && selection.session === undefined) {
    selection.cwd = io.cwd;
  }
  const readReplicas = raw.readReplica ?? [];
  if (readReplicas.length > 0 && dir !== null) {
    throw new StateflowError('USAGE', `--read-replica needs a PostgreSQL store (--store postgres://…); ${dir} is a LevelDB directory`, {});
  }
  for (const url of readReplicas) {
    if (!isPostgresUrl(url)) throw new StateflowError('USAGE', `--read-replica takes a postgres:// URL, got ${JSON.stringify(url)}`, {});
    parseTarget(url);
  }
  return { store: dir ?? location, dir, storeLabel: dir ?? parseTarget(location).location, json: raw.json === true, selection, readReplicas };
}

/**
 * The LevelDB directory of a command that only works on one (its server discovery file, its
 * files on disk).
 * @param instead what to do on a PostgreSQL store, said in the error
 * @throws USAGE when the store is a PostgreSQL URL
 */
export function levelDir(options: GlobalOptions, command: string, instead: string): string {
  if (options.dir !== null) return options.dir;
  throw new StateflowError('USAGE', `stateflow ${command} works on a LevelDB directory (--dir), not on the PostgreSQL store ${options.storeLabel}: ${instead}`, {});
}
