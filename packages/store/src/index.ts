export { openStore, openMemoryStore } from './open-store.js';
export { AuditCode } from './audit-code.js';
export { recoverStore } from './recover-store.js';
export type { RecoveryReport } from './recover-store.js';
export type {
  StreamId,
  ExpectedRevision,
  StreamChange,
  Transition,
  PublishInput,
  PublishResult,
  Durability,
  StreamHead,
  StoreView,
  AuditProblem,
  AuditReport,
  StoreOptions,
  ForkOptions,
  WatchOptions,
  Store,
  JsonObject,
  JsonValue,
} from './types.js';
