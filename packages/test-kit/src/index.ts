export { inCi, unavailable } from './environment.js';
export { mountTmpfs, tmpfsForTest } from './tmpfs.js';
export type { Tmpfs } from './tmpfs.js';
export { freshPostgresUrl, postgresUnavailable, testPostgres, testPostgresUrl } from './postgres.js';
