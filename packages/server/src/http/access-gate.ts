/**
 * Deny by default (DESIGN.md "Access is declared, never inferred from a URL"; server README
 * "Users and keys"). Every route declares who may call it in its own fastify config,
 * `config: { access }`:
 *
 * - `public`: anyone (the page's static files, which the browser loads before the page can send
 *   a credential; the server proof, which a client asks for before it sends its token);
 * - `user`: an API-key user, or the store's owner;
 * - `owner`: the store's owner only — a request carrying the server token, or any request to a
 *   server without API keys that does not require its token.
 *
 * A route that declares nothing is refused when it is registered, so the server does not start
 * ({@link checkDeclaredAccess}, fastify's `onRoute`). The gate ({@link admit}) runs in the first
 * `onRequest` hook: fastify has already matched the route by then, so the declaration it reads
 * is the one of the route that will run — whatever the URL's spelling (`%761`, `//`, `..`) —
 * and no handler, body parser or validator runs before it. An unmatched request (404) needs a
 * credential like a `user` route, so unknown paths tell an anonymous caller nothing. Request
 * targets other than origin-form (absolute-form `http://host/…`, asterisk-form `*`, anything
 * carrying `#`) are refused first, with 400.
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import { StateflowError, elidePath } from '@stateflow/core';
import { LOCAL_USER, authenticateKey } from './api-keys.js';
import { TOKEN_HEADER } from '@stateflow/http-contract/headers';
import { tokenParameter } from '@stateflow/http-contract';
import { carriesToken, tokenRequired } from './access-token.js';

/** Who may call a route (see the module comment). */
export type RouteAccess = 'public' | 'user' | 'owner';

const ACCESS: readonly RouteAccess[] = ['public', 'user', 'owner'];

/** `config` of a route anyone may call. */
export const PUBLIC_ROUTE = { access: 'public' } as const;
/** `config` of a route for API-key users and the store's owner. */
export const USER_ROUTE = { access: 'user' } as const;
/** `config` of a route for the store's owner only. */
export const OWNER_ROUTE = { access: 'owner' } as const;

/** One registered route and its declared access (one entry per method). */
export interface ServedRoute {
  /** `GET`, `POST`, `HEAD`, … */
  method: string;
  /** The route's pattern as registered, e.g. `/v1/:author/:ladder/sessions/:id`. */
  url: string;
  access: RouteAccess;
}

/** What the gate checks credentials against. */
export interface GateSettings {
  /** The server token: the store's owner. */
  token: string;
  /** Refuse every non-public request without the token. */
  requireToken: boolean;
  /** API key → user id, or `null` (one local user, who is the store's owner). */
  keys: ReadonlyMap<string, string> | null;
}

/**
 * fastify `onRoute` check: the route's declared access, one {@link ServedRoute} per method.
 * @throws INTERNAL when the route declares no access (or an unknown one): the server must not
 *   start with a route nobody decided about.
 */
export function checkDeclaredAccess(route: RouteOptions): ServedRoute[] {
  const access = (route.config as { access?: unknown } | undefined)?.access;
  const methods = [route.method].flat();
  if (!ACCESS.includes(access as RouteAccess)) {
    throw new StateflowError(
      'INTERNAL',
      `Route ${methods.join(',')} ${route.url} declares no access: give it config.access 'public', 'user' or 'owner' (deny by default: the server does not start with an undeclared route).`,
      { operation: 'route-declaration' },
    );
  }
  return methods.map((method) => ({ method, url: route.url, access: access as RouteAccess }));
}

/**
 * The gate: decide `request` from its route's declaration and its credentials, before anything
 * else of the route runs. Sets `request.user`, `request.admin` and `request.keyId` for the routes
 * that need a credential.
 * @throws INPUT_INVALID `{ field: 'request-target', reason: 'not-origin-form' }` for an
 *   absolute-form, asterisk-form or `#`-carrying request target; UNAUTHORIZED without a valid
 *   credential (no or an unknown key, no token on a server requiring it); FORBIDDEN
 *   `{ route, access: 'owner' }` for an API-key user on an owner-only route.
 */
export function admit(request: FastifyRequest, settings: GateSettings): void {
  assertOriginForm(request.raw.url ?? '');
  const access: RouteAccess = request.is404 ? 'user' : (request.routeOptions.config.access ?? 'owner');
  if (access === 'public') return;
  const query = queryToken(request.url);
  const token = carriesToken(settings.token, { header: request.headers[TOKEN_HEADER], authorization: request.headers.authorization, query });
  if (token) {
    request.user = LOCAL_USER;
    request.admin = true;
    return;
  }
  if (settings.requireToken) throw tokenRequired();
  if (settings.keys === null) {
    request.user = LOCAL_USER;
    request.admin = true;
    return;
  }
  const holder = authenticateKey(settings.keys, request.headers.authorization);
  if (access === 'owner') {
    const route = `${request.method} ${request.routeOptions.url ?? ''}`;
    throw new StateflowError('FORBIDDEN', `${route} is served to the store's owner only (the server token, or a server without API keys).`, { route, access: 'owner' });
  }
  request.user = holder.user;
  request.keyId = holder.keyId;
}

/**
 * Let `route`'s closed query schema carry the gate's `token` (fastify `onRoute`, before its
 * validator is compiled): `?token=` stands for the token on every route — browser URLs and
 * `EventSource` cannot send a header — so a schema that takes no other unknown parameter must
 * not refuse it. The gate reads it; the route ignores it.
 */
export function acceptTokenQuery(route: RouteOptions): void {
  const query = route.schema?.querystring as { additionalProperties?: unknown; properties?: Record<string, unknown> } | undefined;
  if (query === undefined || query.additionalProperties !== false || query.properties?.token !== undefined) return;
  route.schema = { ...route.schema, querystring: { ...query, properties: { ...query.properties, token: tokenParameter } } };
}

/**
 * @throws INPUT_INVALID unless `target` (the request line's target, as sent) is origin-form: an
 *   absolute path and an optional query (RFC 9112 §3.2.1), without a fragment.
 */
function assertOriginForm(target: string): void {
  if (target.startsWith('/') && !target.includes('#')) return;
  throw new StateflowError(
    'INPUT_INVALID',
    `The request target ${JSON.stringify(elidePath(target))} is not origin-form: send the path and query only (GET /v1/… HTTP/1.1 with a Host header), without a fragment.`,
    { field: 'request-target', reason: 'not-origin-form' },
  );
}

/** The `token` query parameter (browser URLs, EventSource), or `null`. */
function queryToken(url: string): string | null {
  const at = url.indexOf('?');
  return at === -1 ? null : new URLSearchParams(url.slice(at + 1)).get('token');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (`access-gate.ts`); required on every route. */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The authenticated user id (`local` when no keys are configured or the token was sent). */
    user: string;
    /** The store's owner (no API keys, or the server token): every stream and owner visible. */
    admin: boolean;
    /** The API key's id ({@link authenticateKey}) when an API key authenticated the request, else `null`. */
    keyId: string | null;
  }
}
