/**
 * Who wrote a transition (server README "Observability", "Who wrote it"): every transition the
 * server publishes carries `meta.writer`, stamped here and nowhere else, so a caller can neither
 * set nor forge it. The request scope is an `AsyncLocalStorage` entered right before each
 * route's handler runs (after the gate named the user); whatever the handler publishes — the
 * store API, the state API, `/mcp`'s tools, a ladder call and its session records — is stamped
 * through one store wrapper ({@link stampingStore}, the store's `stampWriter`) from that scope.
 *
 * The writer, `{ user, surface, client?, ladder?, request? }`:
 * - `user`: the API-key user, or `local` for the store's owner (from the credentials: never claimed);
 * - `surface`: `http` (store and state API, sessions), `mcp-http` (`/mcp`), `mcp-stdio`
 *   (`stateflow mcp`'s proxy, which says so in {@link SURFACE_HEADER}), `cli` (the CLI through
 *   the server, also by that header), `ladder` (a chat/completions ladder call), `server` (writes
 *   the server makes by itself: the expiry and retention sweep);
 * - `client`: `name/version` of the MCP client — what the stdio proxy forwards from its client's
 *   `initialize` in {@link CLIENT_HEADER}; for other `/mcp` callers (stateless: no
 *   `initialize` is kept) the request's `User-Agent`; at most {@link MAX_CLIENT_CHARS} characters;
 * - `ladder`: the ladder id of a ladder call's writes;
 * - `request`: the request id (the `x-request-id` answer header, the logs' `reqId`);
 * - `tool`, `args`: for a write an MCP tool call made, the tool and a digest of its arguments
 *   (`mcp/tool-call.ts`; never the arguments).
 *
 * `surface` and `client` are the calling process's own words (as `User-Agent` is); `user` and
 * `request` are the server's. A caller's `meta` keeps every other key it sent (a note of its own).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';
import { stampWriter } from '@stateflow/store';
import type { ForkOptions, MergeInput, PublishInput, PublishManyOptions, Store, UndoInput } from '@stateflow/store';
import { CLIENT_HEADER, SURFACE_HEADER } from '@stateflow/http-contract/headers';
import { currentToolCall } from '../../mcp/tool-call.js';

/** Where a write came in. */
export type WriterSurface = 'http' | 'mcp-http' | 'mcp-stdio' | 'cli' | 'ladder' | 'server';

/** `meta.writer` of a transition the server wrote. */
export interface Writer {
  user: string;
  surface: WriterSurface;
  client?: string;
  ladder?: string;
  request?: string;
  /** The MCP tool whose call wrote it, and a digest of the call's arguments (`mcp/tool-call.ts`). */
  tool?: string;
  args?: string;
}

/** Longest `client` kept, in characters (a `User-Agent` can be long; the history stays small). */
export const MAX_CLIENT_CHARS = 64;

/** The request a handler runs for, and what the route said about its surface. */
interface WriterScope {
  request: FastifyRequest;
  surface?: WriterSurface;
  ladder?: string;
}

const scopes = new AsyncLocalStorage<WriterScope>();


/**
 * fastify `preHandler` hook (callback style, so the handler runs inside the scope): enter
 * `request`'s writer scope.
 */
export function enterWriterScope(request: FastifyRequest, _reply: unknown, done: () => void): void {
  scopes.run({ request }, done);
}

/** Say that the current request writes through `surface` (`/mcp`, a ladder call); no-op outside a request. */
export function setWriterSurface(surface: WriterSurface, ladder?: string): void {
  const scope = scopes.getStore();
  if (scope === undefined) return;
  scope.surface = surface;
  if (ladder !== undefined) scope.ladder = ladder;
}

/** The writer of what is published now: the current request's, or `{ user: 'server', surface: 'server' }`. */
export function currentWriter(): Writer {
  const scope = scopes.getStore();
  if (scope === undefined) return { user: 'server', surface: 'server' };
  const { request } = scope;
  const surface = surfaceOf(scope.surface, headerValue(request, SURFACE_HEADER));
  const writer: Writer = { user: request.user === '' ? 'anonymous' : request.user, surface };
  const client = headerValue(request, CLIENT_HEADER) ?? (surface === 'mcp-http' ? headerValue(request, 'user-agent') : undefined);
  if (client !== undefined && client !== '') writer.client = client.slice(0, MAX_CLIENT_CHARS);
  if (scope.ladder !== undefined) writer.ladder = scope.ladder;
  writer.request = request.id;
  const call = currentToolCall();
  if (call !== undefined) Object.assign(writer, call);
  return writer;
}

/**
 * The surface: the route's (a ladder call; `/mcp`, which the stdio proxy may name `mcp-stdio`),
 * else `cli` when the CLI says so, else `http`.
 */
function surfaceOf(route: WriterSurface | undefined, claimed: string | undefined): WriterSurface {
  if (route === 'mcp-http') return claimed === 'mcp-stdio' ? 'mcp-stdio' : 'mcp-http';
  if (route !== undefined) return route;
  return claimed === 'cli' ? 'cli' : 'http';
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The principal of the ladder runtime's and the server's own writes (never a user's: `user:` prefixes those). */
export const RUNTIME_PRINCIPAL = 'runtime';

/**
 * Whose idempotency ids the current write's are (server README "Idempotency ids"): an API-key
 * user's are `user:<name>`, whatever the input said; the ladder runtime's and the server's own
 * (a ladder call, the sweep) are {@link RUNTIME_PRINCIPAL}'s; the store's owner keeps the
 * principal it named, or none — the unscoped ids of stores before principals, so an old id is
 * still matched for the owner and for no one else.
 */
export function currentPrincipal(given: string | undefined): string | undefined {
  const scope = scopes.getStore();
  if (scope === undefined || scope.surface === 'ladder') return RUNTIME_PRINCIPAL;
  if (scope.request.admin) return given;
  return `user:${scope.request.user}`;
}

/** `input` with its `principal` as {@link currentPrincipal} decides it (not an object: left for the store to refuse). */
function scoped<T extends { principal?: string }>(input: T): T {
  if (input === null || typeof input !== 'object') return input;
  const { principal: given, ...rest } = input;
  const principal = currentPrincipal(given);
  return (principal === undefined ? rest : { ...rest, principal }) as T;
}

/**
 * `store` stamping {@link currentWriter} into every publication's `meta.writer` (store
 * `stampWriter`) and scoping every write's idempotency id by {@link currentPrincipal}.
 */
export function stampingStore(store: Store): Store {
  const stamped = stampWriter(store, () => ({ ...currentWriter() }));
  return new Proxy(stamped, {
    get(target, key) {
      if (key === 'publish') return (input: PublishInput) => target.publish(scoped(input));
      if (key === 'publishMany') return (inputs: PublishInput[], options?: PublishManyOptions) => target.publishMany(Array.isArray(inputs) ? inputs.map(scoped) : inputs, options);
      if (key === 'merge') return (input: MergeInput) => target.merge(scoped(input));
      if (key === 'undo') return (input: UndoInput) => target.undo(scoped(input));
      if (key === 'fork') return (from: string, to: string, options: ForkOptions = {}) => target.fork(from, to, scoped(options));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
