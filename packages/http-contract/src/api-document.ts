/**
 * What the OpenAPI document says of the API as a whole: its title, what it covers, and how a
 * request authenticates. The operations come from the routes (`@fastify/swagger` reads each
 * registered route's schema).
 */

/** The document's `info`. */
export const API_INFO = {
  title: 'Stateflow HTTP API',
  version: '0.1.0',
  description:
    'Ladder sessions, OpenAI-compatible chat/completions over a ladder, time-travel slate reads, the read_state/patch_state state API, ' +
    'the store API (/v1/store/…: the store this server holds, for other processes), the live watch stream (/v1/watch, Server-Sent Events), MCP over Streamable HTTP (/mcp), and the read-only history views behind the history page at /ui/ (/v1/history/…).',
} as const;

/** How a request authenticates: either scheme (a route with `security: []` needs neither). */
export const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'An API key from --keys / STATEFLOW_API_KEYS, or (without keys) the server token' },
  token: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Stateflow-Token',
    description:
      "The server token from stateflow-server.json in the store directory: required by background servers and --require-token; on a server with API keys it stands for the store's owner",
  },
} as const;

/** The document's default `security`: the bearer key or the token. */
export const SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }, { token: [] }];
