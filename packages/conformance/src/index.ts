export { runConformance, conformanceGroups } from './run-conformance.js';
export { runStorageConformance } from './storage/storage-suite.js';
export type { StorageInitializer } from './storage/storage-suite.js';
export { publishGroup } from './groups/publish.js';
export { readGroup } from './groups/read.js';
export { historyGroup } from './groups/history.js';
export { patchAtGroup } from './groups/patch-at.js';
export { effectiveAtGroup } from './groups/effective-at.js';
export { compactionGroup } from './groups/compaction.js';
export { forkRevertGroup } from './groups/fork-revert.js';
export { mergeGroup } from './groups/merge.js';
export { undoGroup } from './groups/undo.js';
export { tagsGroup } from './groups/tags.js';
export { retentionGroup } from './groups/retention.js';
export { auditGroup } from './groups/audit.js';
export { watchGroup } from './groups/watch.js';
export { persistenceGroup } from './groups/persistence.js';
export { modelBasedGroup } from './groups/model-based.js';
export { sharedWritersGroup } from './groups/shared-writers.js';
export { principalIdsGroup } from './groups/principal-ids.js';
export { memoryInitializer } from './memory-initializer.js';
export { runSimulation } from './run-simulation.js';
export { simulationShape } from './simulation-shape.js';
export type { SimulationOptions, SimulationReport } from './run-simulation.js';
export type { SimulationShape } from './simulation-shape.js';
export type {
  ConformanceGroup,
  ConformanceOptions,
  SkipRecord,
  StoreInitializer,
  TestApi,
  TestFn,
} from './initializer.js';
