/**
 * The server token (server README "Token"): a random secret written to the store directory's
 * discovery file (mode 0600), so only the store's owner can read it. Local clients (the CLI,
 * `stateflow mcp`) send it on every request; a server started in the background, or with
 * `--require-token`, refuses every request without it, so another local user cannot use its port.
 * The token also stands for the store's owner on a server with API keys: a request carrying it
 * acts as the local user with full access.
 */
import { timingSafeEqual } from 'node:crypto';
import { StateflowError } from '@stateflow/core';

/** What a request may carry the token in. */
export interface TokenCarrier {
  /** `X-Stateflow-Token`. */
  header: string | string[] | undefined;
  /** `Authorization` (`Bearer <token>`, for MCP clients that only set that header). */
  authorization: string | undefined;
  /** The `token` query parameter (a browser URL, an EventSource). */
  query: string | null;
}

/** Whether the request carries `token` in any of the accepted places (constant-time compare). */
export function carriesToken(token: string, carrier: TokenCarrier): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(carrier.authorization ?? '')?.[1];
  const header = Array.isArray(carrier.header) ? carrier.header[0] : carrier.header;
  return [header, bearer, carrier.query ?? undefined].some((given) => given !== undefined && same(given, token));
}

function same(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The 401 of a server that requires its token. */
export function tokenRequired(): StateflowError<'UNAUTHORIZED'> {
  return new StateflowError(
    'UNAUTHORIZED',
    'This stateflow server requires its token: send "X-Stateflow-Token: <token>" (or "Authorization: Bearer <token>"); the token is in stateflow-server.json in the store directory, readable by the store\'s owner.',
    {},
  );
}
