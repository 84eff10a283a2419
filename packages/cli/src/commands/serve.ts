/**
 * `stateflow serve`: the main job (README "Quick start") — the HTTP server of `@stateflow/server` (sessions
 * API, chat/completions over ladders, state API) on the embedded store, by default
 * `./.stateflow` on 127.0.0.1:7411. Prints where it listens, where the data is, and one command
 * to try; stops on SIGINT/SIGTERM.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { duration, formatDuration, nonNegativeInt, positiveInt, requestRate } from '../internal/arguments.js';
import type { ServerHandle, ServerOptions } from '@stateflow/server';
import type { CommandContext } from '../command-context.js';

interface ServeOptions {
  ladders?: string;
  host: string;
  port: number;
  keys?: string;
  model?: string;
  requireToken?: boolean;
  idleTimeout?: number;
  background?: boolean;
  heartbeat?: number;
  bodyLimit?: number;
  upstreamModel?: string;
  sessionIdle: number;
  sessionRetention: number;
  rateLimit?: { requests: number; windowMs: number } | false;
  modelCalls?: number;
  watchesPerKey?: number;
  maxWatches?: number;
  workBudget?: number;
  historyTools?: boolean;
  savepointIdle?: number;
}

/** Default session idle expiry and retention (the session manager's defaults): 30 days. */
const THIRTY_DAYS_MS = 30 * 86_400_000;

/** Register `serve`. */
export function registerServeCommand(program: Command, ctx: CommandContext): void {
  const command = program.command('serve').description('run the HTTP server (sessions API, chat/completions, state API) on the store');
  serveOptions(command).action((local: ServeOptions, invoked: Command) => serve(local, invoked, ctx));
}

/** The options of `serve` (its README table): where it listens, who it admits, its limits and its sessions' lifetimes. */
function serveOptions(command: Command): Command {
  return command
    .option('--ladders <dir>', 'serve every <dir>/<author>/<name>.yaml ladder as @author/name')
    .option('--host <host>', 'interface to bind (non-loopback needs API keys)', '127.0.0.1')
    .option('--port <port>', 'TCP port (0 picks a free one)', nonNegativeInt, 7411)
    .option('--keys <file>', 'API keys file {"<key>": "<user id>"} (else $STATEFLOW_API_KEYS; none: one local user)')
    .option('--model <spec>', "model of every ladder call: scripted:<file.jsonl> or openai:<model> (default: OPENAI_BASE_URL / OPENAI_API_KEY with each request's model)")
    .option('--require-token', 'refuse requests without the server token (in stateflow-server.json in the store directory, mode 0600)')
    .option('--idle-timeout <ms>', 'stop after this many ms with no request and no open watch stream', positiveInt)
    .option('--heartbeat <ms>', 'interval of the watch stream heartbeat comment in ms (default 15000)', positiveInt)
    // Set by `stateflow mcp` when it starts a server; recorded in the discovery file.
    .addOption(new Option('--background').hideHelp())
    .option('--rate-limit <rate>', 'per-key request rate with API keys, N/DURATION (default 600/1m; off for none); over it: 429 with Retry-After', requestRate)
    .option('--model-calls <n>', 'per-key chat/completions calls running at once with API keys (default 4; 0 for no limit); one more: 429 with Retry-After', nonNegativeInt)
    .option('--watches-per-key <n>', 'open watch streams one API key may hold (default 32; 0 for no cap); one more: 429 with Retry-After', nonNegativeInt)
    .option('--max-watches <n>', 'open watch streams the server holds in all (default 2000; 0 for no cap); one more: 429 with Retry-After', nonNegativeInt)
    .option('--work-budget <ms>', 'wall-clock ms one publish-many may spend staging (default 200; 0 for none); past it: 400, nothing written', nonNegativeInt)
    .option('--history-tools', "offer agents the opt-in MCP tools history, diff_revisions and undo (their own writes only) beside read_state and patch_state")
    .option('--savepoint-idle <duration>', "tag the seq before each writer's burst after this idle gap (90s, 10m; ms when bare): savepoint.<writer> (default off)", (v: string) => Math.round(duration({ allowZero: false, allowForever: false })(v)))
    .option('--body-limit <bytes>', 'largest request body in bytes (default 1048576 = 1 MiB; larger bodies cost more CPU per request)', positiveInt)
    .addOption(
      new Option('--upstream-model <name>', 'upstream model for requests whose model is the ladder itself (what GET …/models lists)').env(
        'STATEFLOW_UPSTREAM_MODEL',
      ),
    )
    .addOption(
      new Option('--session-idle <duration>', 'a session unused this long expires (90s, 12h, 30d)')
        .env('STATEFLOW_SESSION_IDLE')
        .argParser(duration({ allowZero: false, allowForever: false }))
        .default(THIRTY_DAYS_MS, '30d'),
    )
    .addOption(
      new Option('--session-retention <duration>', "how long a closed or expired session's slates stay readable before deletion (0 deletes at once; forever keeps them)")
        .env('STATEFLOW_SESSION_RETENTION')
        .argParser(duration({ allowZero: true, allowForever: true }))
        .default(THIRTY_DAYS_MS, '30d'),
    );
}

/** Run the server until SIGINT, SIGTERM or its idle timeout; then close it (and a PostgreSQL store opened here). */
async function serve(local: ServeOptions, command: Command, ctx: CommandContext): Promise<void> {
  const options = ctx.options(command);
  const dir = options.dir;
  // A directory is opened by the server (which reopens it after a failed write and writes its
  // discovery file); a PostgreSQL store is opened here and shared with every other server on it.
  const shared = dir === null ? await (await import('@stateflow/store-postgres')).openPostgresStore(options.store, { readReplicas: options.readReplicas }) : undefined;
  if (dir !== null) await mkdir(dir, { recursive: true });
  const { startServer } = await import('@stateflow/server');
  let idle: (() => void) | undefined;
  let server: ServerHandle;
  try {
    server = await startServer({
      ...(shared === undefined ? { dir: dir ?? undefined } : { store: shared }),
      ...serverOptions(local, ctx),
      ...(local.idleTimeout === undefined ? {} : { idleTimeoutMs: local.idleTimeout, onIdle: () => idle?.() }),
    });
  } catch (err) {
    await shared?.close();
    throw err;
  }
  // Listen for the stop signals before the banner says how to stop: a supervisor (or a test)
  // that signals as soon as it reads the banner must not meet the default handler.
  const stopped = new Promise<void>((resolve) => {
    idle = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  ctx.io.stdout.write(banner(server, local, ctx, options.storeLabel, dir));
  await stopped;
  await server.close();
  await shared?.close();
}

/** `startServer`'s options from the command line (the store and the idle timeout aside). */
function serverOptions(local: ServeOptions, ctx: CommandContext): ServerOptions {
  return {
    host: local.host,
    port: local.port,
    env: ctx.io.env,
    ...(local.ladders === undefined ? {} : { ladders: path.resolve(ctx.io.cwd, local.ladders) }),
    ...(local.keys === undefined ? {} : { keysFile: path.resolve(ctx.io.cwd, local.keys) }),
    ...(local.model === undefined ? {} : { model: local.model }),
    ...(local.bodyLimit === undefined ? {} : { bodyLimit: local.bodyLimit }),
    ...(local.rateLimit === undefined ? {} : { rateLimit: local.rateLimit }),
    ...(local.modelCalls === undefined ? {} : { modelCallsPerKey: local.modelCalls }),
    ...(local.watchesPerKey === undefined ? {} : { watchesPerKey: local.watchesPerKey }),
    ...(local.maxWatches === undefined ? {} : { maxWatches: local.maxWatches }),
    ...(local.workBudget === undefined ? {} : { workBudgetMs: local.workBudget }),
    ...(local.upstreamModel === undefined ? {} : { upstreamModel: local.upstreamModel }),
    sessionIdleMs: local.sessionIdle,
    sessionRetentionMs: local.sessionRetention,
    onWarning: (message) => ctx.io.stderr.write(`${message}\n`),
    requireToken: local.requireToken === true,
    background: local.background === true,
    ...(local.heartbeat === undefined ? {} : { heartbeatMs: local.heartbeat }),
    ...(local.historyTools === true ? { historyTools: true } : {}),
    ...(local.savepointIdle === undefined ? {} : { savepointIdleMs: local.savepointIdle }),
  };
}

/** The banner: where it listens, where the data is, one command to try, the token, how to stop it. */
function banner(server: ServerHandle, local: ServeOptions, ctx: CommandContext, storeLabel: string, dir: string | null): string {
  return [
    `stateflow serving on ${server.url}`,
    `data: ${storeLabel}`,
    `ladders: ${server.ladders.length === 0 ? 'none (pass --ladders DIR to serve some)' : server.ladders.join(', ')}`,
    `try: ${tryCommand(server, local.background === true ? null : ctx.io.cwd, dir)}`,
    `token: ${server.requireToken ? 'required on every request' : 'accepted'} (${tokenWhere(server.token, dir)}); browser: ${server.url}/ui/#token=${server.token}`,
    `pid ${process.pid}${local.idleTimeout === undefined ? '' : `; stops by itself after ${local.idleTimeout} ms idle`}; ${dir === null ? `"kill ${process.pid}" stops it` : `"stateflow stop --dir ${dir}" stops it from anywhere`}`,
    `sessions: expire after ${formatDuration(local.sessionIdle)} idle; slates kept ${formatDuration(local.sessionRetention)} after close or expiry`,
    'stop with Ctrl-C',
    '',
  ].join('\n');
}

/**
 * Where a client finds the server's token: the discovery file of a store directory, or, on
 * PostgreSQL, where several servers share one store and none owns a directory, only this banner.
 */
function tokenWhere(token: string, dir: string | null): string {
  return dir === null ? `${token}: a server on PostgreSQL writes no discovery file, so only this banner has it; it is new at each start` : 'stateflow-server.json in the store directory';
}

/**
 * One command that works against the server just started. Without API keys the state API serves
 * the local user's cwd owner; with keys a caller reaches only its own ladder sessions, so the
 * command creates one (or, with no ladder served, fetches the OpenAPI document). A background
 * server runs in its store directory, which is nobody's project: its command reads the global
 * owner (`cwd` null).
 */
function tryCommand(server: Pick<ServerHandle, 'url' | 'requiresKey' | 'requireToken' | 'ladders' | 'token'>, cwd: string | null, dir: string | null): string {
  const { url, requiresKey, requireToken, ladders } = server;
  if (!requiresKey) {
    const [selection, read] = cwd === null ? [{ global: true }, 'global'] : [{ cwd }, 'cwd'];
    const body = JSON.stringify({ selection: { ...selection, mode: 'active' }, path: read, projection: 'keys' });
    // Without a directory there is no discovery file to read the token from: the banner prints it.
    const tokenValue = dir === null ? server.token : `$(node -p 'require(process.argv[1]).token' '${path.join(dir, 'stateflow-server.json')}')`;
    const token = requireToken ? ` -H "X-Stateflow-Token: ${tokenValue}"` : '';
    return `curl -s -w '\\n' ${url}/v1/state/read -H 'content-type: application/json'${token} -d '${body}'`;
  }
  const ladder = ladders[0];
  if (ladder === undefined) return `curl -s -w '\\n' ${url}/openapi.json`;
  return `curl -s -w '\\n' -X POST ${url}/v1/${ladder.replace(/^@/, '')}/sessions -H 'Authorization: Bearer <your key>' -H 'content-type: application/json' -d '{}'`;
}
