export { openPostgresStore, openStoreAt, dropPostgresStore } from './open-postgres-store.js';
export { buildNewPostgresStore } from './build-new-store.js';
export type { PostgresStoreOptions } from './open-postgres-store.js';
export { openPostgresStorage } from './postgres-storage.js';
export type { PostgresStorageOptions } from './postgres-storage.js';
export { isPostgresUrl, parseTarget, storeLocationKind, DEFAULT_SCHEMA, POSTGRES_SCHEMES } from './store-url.js';
export type { PostgresTarget } from './store-url.js';
export { SCHEMA_VERSION } from './schema.js';
