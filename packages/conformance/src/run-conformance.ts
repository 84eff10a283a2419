/**
 * The whole conformance suite in one call.
 */
import type { ConformanceGroup, ConformanceOptions, SkipRecord, StoreInitializer, TestApi } from './initializer.js';
import { auditGroup } from './groups/audit.js';
import { compactionGroup } from './groups/compaction.js';
import { effectiveAtGroup } from './groups/effective-at.js';
import { forkRevertGroup } from './groups/fork-revert.js';
import { mergeGroup } from './groups/merge.js';
import { tagsGroup } from './groups/tags.js';
import { retentionGroup } from './groups/retention.js';
import { undoGroup } from './groups/undo.js';
import { historyGroup } from './groups/history.js';
import { modelBasedGroup } from './groups/model-based.js';
import { patchAtGroup } from './groups/patch-at.js';
import { persistenceGroup } from './groups/persistence.js';
import { principalIdsGroup } from './groups/principal-ids.js';
import { publishGroup } from './groups/publish.js';
import { readGroup } from './groups/read.js';
import { sharedWritersGroup } from './groups/shared-writers.js';
import { watchGroup } from './groups/watch.js';
import { warnSkip } from './internal/group.js';

type GroupFunction = (init: StoreInitializer, api: TestApi, options?: ConformanceOptions) => void;

/** Every group, in the order the suite registers them. */
export const conformanceGroups: Readonly<Record<ConformanceGroup, GroupFunction>> = {
  publish: publishGroup,
  read: readGroup,
  history: historyGroup,
  patchAt: patchAtGroup,
  effectiveAt: effectiveAtGroup,
  compaction: compactionGroup,
  forkRevert: forkRevertGroup,
  merge: mergeGroup,
  undo: undoGroup,
  tags: tagsGroup,
  retention: retentionGroup,
  audit: auditGroup,
  watch: watchGroup,
  persistence: persistenceGroup,
  modelBased: modelBasedGroup,
  sharedWriters: sharedWritersGroup,
  principalIds: principalIdsGroup,
};

/**
 * Register every conformance group for the backend `init` with the test runner `api`
 * (e.g. vitest's `{ describe, it }`). Returns the list of skips, filled as the runner
 * collects the groups (each is also passed to `options.onSkip`, by default printed with
 * `console.warn`).
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { runConformance, memoryInitializer } from '@stateflow/conformance';
 * runConformance(memoryInitializer(), { describe, it });
 */
export function runConformance(
  init: StoreInitializer,
  api: TestApi,
  options: ConformanceOptions = {},
): { skipped: SkipRecord[] } {
  const skipped: SkipRecord[] = [];
  const recording: ConformanceOptions = {
    ...options,
    onSkip: (skip) => {
      skipped.push(skip);
      (options.onSkip ?? warnSkip)(skip);
    },
  };
  for (const group of Object.values(conformanceGroups)) group(init, api, recording);
  return { skipped };
}
