/**
 * Opening the store a command works on, and closing it whatever happens.
 *
 * A PostgreSQL store (`--store postgres://…`) is opened directly: the database serialises any
 * number of writing processes, so a command never needs a server for it.
 *
 * LevelDB lets one process open a store directory (DESIGN.md "Processes and backends"). When a
 * `stateflow serve` holds the directory — started by hand or in the background by
 * `stateflow mcp` — a command uses that server's store API instead (`openRemoteStore` of
 * `@stateflow/client`, found through the directory's discovery file), so every command runs
 * the same code and gives the same output either way.
 *
 * The store, client and PostgreSQL packages are loaded when a store is opened, not when this
 * module is: a command that never opens one (`--help`, `--version`, a usage error) starts
 * without them.
 */
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { StateflowError, isStateflowError } from '@stateflow/core/errors';
import type { ServerEndpoint } from '@stateflow/client';
import type { Store } from '@stateflow/store';
import type { JsonObject } from '@stateflow/core';
import { isPostgresUrl } from '@stateflow/store-postgres/location';

/** How long a command waits for the discovery file of a server that is taking the store, in ms. */
const LOCKED_WAIT_MS = 3_000;

/** Where a command's store is: a `postgres://` URL or a directory, and the URLs of a PostgreSQL store's read replicas (`--read-replica`). */
export interface StoreLocation {
  store: string;
  readReplicas?: readonly string[];
}

/** How a command uses the store directory. */
export type StoreAccess =
  /** A Stateflow store must exist already (reads, audit, export); nothing is created. */
  | 'existing'
  /** Create the directory and the store when absent (patch, import, serve). */
  | 'create';

/**
 * Open the store at `where` (a `postgres://` URL — with its read replicas —, or a directory —
 * through the server that holds it, if one does), run `work`, and close the store (also when
 * `work` throws). What `work` publishes on a store opened here carries `meta.writer`
 * (`options.writer()`, default the CLI's); through a server, the server stamps it.
 *
 * @throws NOT_FOUND when `access` is `'existing'` and there is no Stateflow store there (the
 *   store's `createIfMissing: false`: no LevelDB `CURRENT` file or no format record, or a schema
 *   without a store; nothing is created).
 * @throws STORE_LOCKED when another process holds the directory and no live server answers for
 *   it; whatever opening throws (STORE_VERSION, STORE_CORRUPT, STORE_IO; STORE_UNAVAILABLE when
 *   PostgreSQL does not answer); STORE_UNAVAILABLE when the server stops answering during `work`.
 */
export async function withStore<T>(
  where: string | StoreLocation,
  access: StoreAccess,
  work: (store: Store, server: ServerEndpoint | null) => Promise<T>,
  options: { writer?: () => JsonObject } = {},
): Promise<T> {
  const { store: location, readReplicas = [] } = typeof where === 'string' ? { store: where } : where;
  if (!isPostgresUrl(location)) {
    // The store's modules are loaded either way (the remote store is a Store too), LevelDB's
    // unless a server answers: start loading both while the server is looked for.
    import('@stateflow/store-leveldb').catch(() => undefined);
  }
  const opened = isPostgresUrl(location)
    ? { store: await openPostgres(location, access, readReplicas), server: null }
    : ((await openServed(location)) ?? (await openLocal(location, access)));
  const { server } = opened;
  // Through a server, the server stamps the writer (this endpoint says `cli`); opened here, the CLI does.
  const store = server === null ? await stamped(opened.store, options.writer) : opened.store;
  // What the open repaired (buffered transitions a power loss took) is said once, on stderr,
  // whatever the command.
  for (const notice of store.notices) process.stderr.write(`stateflow: warning: ${notice.message} [${notice.code}]\n`);
  try {
    return await work(store, server);
  } finally {
    await store.close();
  }
}

/**
 * `store` stamping `meta.writer` into what it publishes: `writer()`, by default
 * `{ user: 'local', surface: 'cli', client: 'stateflow/<version>' }`.
 */
async function stamped(store: Store, writer?: () => JsonObject): Promise<Store> {
  const { stampWriter } = await import('@stateflow/store');
  if (writer !== undefined) return stampWriter(store, writer);
  const cli = { user: 'local', surface: 'cli', client: await cliClient() };
  return stampWriter(store, () => cli);
}

/** `stateflow/<version>`: the CLI as a writer's client. */
async function cliClient(): Promise<string> {
  const { createRequire } = await import('node:module');
  const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
  return `stateflow/${version}`;
}

/** The PostgreSQL store at `url` (with its read replicas); NOT_FOUND says how to create one. */
async function openPostgres(url: string, access: StoreAccess, readReplicas: readonly string[]): Promise<Store> {
  const { openPostgresStore } = await import('@stateflow/store-postgres');
  try {
    return await openPostgresStore(url, { createIfMissing: access === 'create', readReplicas: [...readReplicas] });
  } catch (err) {
    // A missing database already says how to create it; a missing store (schema) is said here.
    if (!isStateflowError(err, 'NOT_FOUND') || 'database' in err.details) throw err;
    throw new StateflowError('NOT_FOUND', `${err.message}: pass --store (or set STATEFLOW_STORE) to an existing store, or create one with "stateflow patch" or "stateflow import".`, err.details, { cause: err });
  }
}

/** The store of the live server serving `dir` and that server, or `null` when none does. */
async function openServed(dir: string): Promise<{ store: Store; server: ServerEndpoint } | null> {
  const { findServer } = await import('@stateflow/client/discovery');
  const served = await findServer(dir);
  if (served === null) return null;
  const { openRemoteStore } = await import('@stateflow/client');
  const server: ServerEndpoint = { url: served.url, token: served.token, surface: 'cli', client: await cliClient() };
  return { store: await openRemoteStore(server), server };
}

/** The store opened by this process, or — when a server took it meanwhile — that server's. */
async function openLocal(dir: string, access: StoreAccess): Promise<{ store: Store; server: ServerEndpoint | null }> {
  const { openStore } = await import('@stateflow/store-leveldb');
  try {
    if (access === 'create') {
      await mkdir(dir, { recursive: true });
      return { store: await openStore(dir), server: null };
    }
    return { store: await openStore(dir, { createIfMissing: false }), server: null };
  } catch (err) {
    if (isStateflowError(err, 'STORE_LOCKED')) return whenServed(dir, err);
    if (!isStateflowError(err, 'NOT_FOUND')) throw err;
    throw new StateflowError(
      'NOT_FOUND',
      `No store at ${dir}: pass --dir (or set STATEFLOW_DIR) to an existing store, or create one with "stateflow patch" or "stateflow import".`,
      { dir },
      { cause: err },
    );
  }
}

/**
 * Another process holds `dir`: a server that is starting writes its discovery file just after
 * taking the lock, so wait a moment for it; any other holder is named in the error.
 */
async function whenServed(dir: string, locked: StateflowError): Promise<{ store: Store; server: ServerEndpoint }> {
  const deadline = Date.now() + LOCKED_WAIT_MS;
  for (;;) {
    const served = await openServed(dir);
    if (served !== null) return served;
    if (Date.now() >= deadline) throw await lockedError(dir, locked);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** STORE_LOCKED naming the holder: a server (pid, address, how to stop it), or another process. */
export async function lockedError(dir: string, cause: unknown): Promise<StateflowError<'STORE_LOCKED'>> {
  const { readDiscovery } = await import('@stateflow/client/discovery');
  const holder = await readDiscovery(dir);
  const who =
    holder === null
      ? 'another process holds it (a stateflow command or a program using @stateflow/store); wait for it to finish'
      : `the stateflow server pid ${holder.pid} on ${holder.url} holds it and does not answer; stop it with "stateflow stop --dir ${dir}" (or kill ${holder.pid})`;
  return new StateflowError('STORE_LOCKED', `The store ${dir} is locked: ${who}.`, { dir }, { cause });
}

/**
 * Refuse to go on while a server serves `dir`, for commands that need the store alone.
 * @throws STORE_LOCKED naming the server (pid, address) and `stateflow stop`.
 */
export async function requireNoServer(dir: string, command: string): Promise<void> {
  const { findServer } = await import('@stateflow/client/discovery');
  const served = await findServer(dir);
  if (served === null) return;
  throw new StateflowError(
    'STORE_LOCKED',
    `${command} needs the store ${dir} alone, but the stateflow server pid ${served.pid} on ${served.url} holds it; stop it first with "stateflow stop --dir ${dir}".`,
    { dir },
  );
}

/**
 * Build a new store at `location` all or nothing. A directory (which must be absent or empty):
 * `work` fills a store in a fresh sibling temporary directory, which is renamed to `dir` only
 * when `work` returns; when anything fails, the temporary directory (and any parent this call
 * created) is removed and `dir` is left exactly as it was. A PostgreSQL URL: the same in a new
 * schema renamed into place (`buildNewPostgresStore`).
 *
 * @throws USAGE when `location` holds a store or files; STORE_LOCKED when a server serves the
 *   directory; whatever `work` or opening throws.
 */
export async function withNewStore<T>(location: string, work: (store: Store) => Promise<T>): Promise<T> {
  if (isPostgresUrl(location)) {
    const { buildNewPostgresStore } = await import('@stateflow/store-postgres');
    return buildNewPostgresStore(location, work);
  }
  const { openStore } = await import('@stateflow/store-leveldb');
  const dir = location;
  await requireNoServer(dir, 'replay');
  const entries = await listDir(dir);
  if (entries !== null && entries.length > 0) {
    throw new StateflowError('USAGE', `${dir} is not empty: pass --dir with a new or empty directory to build the store in.`, {
      dir,
    });
  }
  const parent = path.dirname(dir);
  const createdParent = await mkdir(parent, { recursive: true });
  let staging: string | undefined;
  try {
    // A sibling, so the final rename stays on one file system and is atomic.
    staging = await mkdtemp(path.join(parent, `.${path.basename(dir)}.building-`));
    const store = await openStore(staging);
    let result: T;
    try {
      result = await work(store);
    } finally {
      await store.close();
    }
    await rename(staging, dir); // replaces `dir` when it is an empty directory
    staging = undefined;
    return result;
  } catch (err) {
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
    if (createdParent !== undefined) await rm(createdParent, { recursive: true, force: true });
    throw err;
  }
}

async function listDir(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
