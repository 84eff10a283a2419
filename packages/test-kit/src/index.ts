export { inCi, unavailable } from './environment.js';
export { mountTmpfs } from './tmpfs.js';
export type { Tmpfs } from './tmpfs.js';
