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
