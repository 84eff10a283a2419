export { createRuntime } from './runtime.js';
export type { Runtime, RuntimeOptions } from './runtime.js';
export { selectedOwners } from './selection.js';
export { jsonInput } from './json-input.js';
export type { Selection, SelectedOwner } from './selection.js';
export {
  readStateInputSchema,
  patchStateInputSchema,
  READ_STATE_TOOL,
  PATCH_STATE_TOOL,
  READ_STATE_DESCRIPTION,
  PATCH_STATE_DESCRIPTION,
} from './schemas.js';
export type { ReadStateResult } from './read-state.js';
export { MAX_READ_PATHS, MAX_RESPONSE_BYTES } from './read-state.js';
export type { PatchStateResult, EffectiveUpdate, PatchCallOptions } from './patch-state.js';
export { MAX_PUBLISH_ATTEMPTS } from './patch-state.js';
export type { Baseline, BaselineTransition } from './baseline.js';
export { DEFAULT_RECENT_TRANSITIONS, MAX_SCANNED_TRANSITIONS } from './baseline.js';
export type { DanglingReferenceResult } from './dangling-reference.js';
export { DANGLING_REFERENCE_MESSAGE, DANGLING_HINT_MAX_PATHS } from './dangling-reference.js';
export {
  createHistoryTools,
  HISTORY_TOOL,
  DIFF_REVISIONS_TOOL,
  UNDO_TOOL,
  HISTORY_DESCRIPTION,
  DIFF_REVISIONS_DESCRIPTION,
  UNDO_DESCRIPTION,
  MAX_HISTORY_PAGE,
  historyInputSchema,
  diffRevisionsInputSchema,
  undoInputSchema,
} from './history-tools.js';
export type { HistoryTools, HistoryToolsOptions, HistoryEntry } from './history-tools.js';
