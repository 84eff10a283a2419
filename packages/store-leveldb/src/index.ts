export { openStore } from './open-store.js';
export { openDiskStorage } from './disk-storage.js';
export type { DiskStorageOptions } from './disk-storage.js';
export { recoverStore } from './recover-store.js';
export type { RecoveryReport } from './recover-store.js';
export { hasRoomToReopen } from './disk-room.js';
