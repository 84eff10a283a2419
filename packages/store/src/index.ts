export { openStore, openMemoryStore, openStoreOver } from './open-store.js';
export { openDiskStorage, openMemoryStorage } from './level-storage.js';
export type { Storage, StorageReader, StorageCapabilities, StorageOp, StorageRepair, StorageReplica, IterateOptions, WriteSession, HeldLock } from './storage.js';
export { AuditCode } from './audit-code.js';
export { recoverStore } from './recover-store.js';
export { hasRoomToReopen } from './disk-room.js';
export { SerialQueue } from './serial-queue.js';
export { NamedLocks } from './named-locks.js';
export type { BackendLock, LockAttempt } from './named-locks.js';
export { retryOnConflict } from './conflict-retry.js';
export type { RetryOnConflictOptions } from './conflict-retry.js';
export type { RecoveryReport } from './recover-store.js';
export type {
  StreamId,
  ExpectedRevision,
  StreamChange,
  Transition,
  PublishInput,
  PublishResult,
  PrunedTransition,
  StoreNotice,
  Durability,
  StreamHead,
  StoreView,
  AuditProblem,
  AuditReport,
  StoreOptions,
  ForkOptions,
  MergeBase,
  MergeInput,
  MergePlan,
  MergeResult,
  WatchOptions,
  Store,
  JsonObject,
  JsonValue,
  MergeConflict,
  MergeResolution,
} from './types.js';
