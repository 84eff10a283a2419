/**
 * `@stateflow/client/discovery`: finding the server of a store directory (its discovery file and
 * the liveness check, `findServer`) without the remote store and the watch client, for a process
 * that must start fast and learns only then whether it needs them (the `stateflow` command). The
 * values are the main entry's own.
 */
export { findServer } from './find-server.js';
export { DISCOVERY_FILE, discoveryPath, processAlive, readDiscovery } from './discovery.js';
export type { ServerDiscovery } from './discovery.js';
