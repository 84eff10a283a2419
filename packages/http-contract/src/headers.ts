/**
 * The HTTP headers the API defines. A module of its own, without schemas, so that clients can
 * import the names (`@stateflow/http-contract/headers`) without loading the route schemas.
 */

/** Header carrying the store's last accepted seq on every store API answer. */
export const LAST_SEQ_HEADER = 'stateflow-last-seq';

/** Header of a `POST /v1/state/patch` answer naming the transition the call published (absent: no change). */
export const TRANSITION_HEADER = 'stateflow-transition';

/** Header carrying the server token (server README "The server token"). */
export const TOKEN_HEADER = 'x-stateflow-token';

/**
 * Request header naming the calling surface for `meta.writer` (server README "Who wrote it"):
 * `cli` (the CLI through the server) or `mcp-stdio` (`stateflow mcp`'s proxy, on `/mcp`).
 * Anything else is ignored.
 */
export const SURFACE_HEADER = 'x-stateflow-surface';

/**
 * Request header naming the MCP client behind the caller, `name/version` (the stdio proxy
 * forwards its client's `clientInfo`), for `meta.writer.client`.
 */
export const CLIENT_HEADER = 'x-stateflow-client';
