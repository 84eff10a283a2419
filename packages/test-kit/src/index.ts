export { inCi, unavailable } from './environment.js';
export { mountTmpfs, tmpfsForTest } from './tmpfs.js';
export type { Tmpfs } from './tmpfs.js';
