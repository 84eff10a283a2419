export { openMemoryStore, openStoreOver } from './open-store.js';
export { stampWriter } from './writer-stamp.js';
export { openMemoryStorage } from './memory-storage.js';
export { openLevelStorage } from './level-storage.js';
export type { LevelDatabase, LevelStorageOptions } from './level-storage.js';
export { translateLevelError } from './level-errors.js';
export { truncateToIntactChain } from './truncate-to-intact-chain.js';
export type { TruncationReport } from './truncate-to-intact-chain.js';
export { seqOfLogKey } from './log-key.js';
export { OPTIONAL_STORAGE_MEMBERS, storageManifest } from './storage-manifest.js';
export { rangeStart, readRangesByIterating } from './range-reads.js';
export { YIELD_EVERY_MS, workBudget } from './work-budget.js';
export type { WorkBudget } from './work-budget.js';
export type { OptionalStorageMember, StorageManifest } from './storage-manifest.js';
export type { Storage, StorageReader, StorageCapabilities, StorageOp, StorageRepair, StorageReplica, PoolUse, IterateOptions, RangeRead, WriteSession, HeldLock } from './storage.js';
export { AuditCode } from './audit-code.js';
export { parseStreamFamily, familyMatches, compareFamilies, governingFamily, isExactFamily, MAX_PATTERN_BYTES } from './stream-family.js';
export type { StreamFamily } from './stream-family.js';
export { RESERVED_STREAM_PREFIX, DECLARATION_STREAMS, isReservedStream, declarationKindOf } from './declarations.js';
export type { DeclarationKind } from './declarations.js';
export { listTags, resolveTag, revisionAtTag, setTag, removeTag, stateAtTag } from './tags.js';
export type { Tag, TagTarget } from './tags.js';
export { SerialQueue } from './serial-queue.js';
export { NamedLocks } from './named-locks.js';
export type { BackendLock, LockAttempt } from './named-locks.js';
export { retryOnConflict } from './conflict-retry.js';
export type { RetryOnConflictOptions } from './conflict-retry.js';
export type { StoreObserver, PublishObservation, PublishOutcome, CommitObservation, ReadObservation, ReadKind } from './store-observer.js';
export type {
  StreamId,
  ExpectedRevision,
  StreamChange,
  Transition,
  PublishInput,
  PublishManyOptions,
  PublishResult,
  PrunedTransition,
  TransitionOutline,
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
  UndoInput,
  UndoSince,
  UndoPlan,
  UndoResult,
  UndoConflict,
  WriterMatch,
} from './types.js';
export { checkShape, checkShapeSelector, diffInShape, getShape, listShapes, registerUpcastFunction, setShape, shapeOfStream, stateAtShape, transitionsInShape, upgradeHeads, versionAt } from './shapes.js';
export type { Shape, ShapeCheckFailure, ShapeCheckReport, ShapeVersionInput } from './shapes.js';
export { shaped } from './shapes.js';
export type { ShapeReadOptions, ShapeSelector } from './types.js';
export { listRetention, removeRetention, setRetention } from './retention.js';
export type { RetentionDeclaration, RetentionPolicy } from './retention.js';
export { retain } from './retain.js';
export { outlinesOf } from './internal/retention-plan.js';
export type { RetainOptions, RetainReport, RetainedStream, RetentionTotals } from './retain.js';
export { auditArchive, listArchives, openArchive } from './archive.js';
export type { ArchiveAuditReport, ArchiveProblem, ArchiveRange, ArchiveRecord, OpenArchive } from './archive.js';
