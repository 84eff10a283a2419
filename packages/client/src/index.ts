export { openRemoteStore } from './remote-store.js';
export type { RemoteStoreOptions, ServerInfo } from './remote-store.js';
export { watchTransitions } from './watch-client.js';
export type { WatchClientOptions, WatchEvent } from './watch-client.js';
export { callServer, authHeaders, endpointUrl, unreachable, serverError, DEFAULT_REQUEST_TIMEOUT_MS } from './http-call.js';
// The API's header names, from the contract (a module without schemas: nothing else of it loads).
export { CLIENT_HEADER, LAST_SEQ_HEADER, SURFACE_HEADER, TOKEN_HEADER, TRANSITION_HEADER } from '@stateflow/http-contract/headers';
export type { ServerEndpoint, CallOptions, CallResult } from './http-call.js';
export {
  DISCOVERY_FILE,
  discoveryPath,
  newServerToken,
  processAlive,
  readDiscovery,
  removeDiscovery,
  writeDiscovery,
} from './discovery.js';
export type { ServerDiscovery } from './discovery.js';
export { findServer } from './find-server.js';
export type { FindServerOptions } from './find-server.js';
export { PROOF_ROUTE, newProofNonce, serverProof, verifyServer } from './server-proof.js';
