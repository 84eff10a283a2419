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
export type { ReadStateResult } from './internal/read-state.js';
export { MAX_READ_PATHS, MAX_RESPONSE_BYTES } from './internal/read-state.js';
export type { PatchStateResult, EffectiveUpdate, PatchCallOptions } from './internal/patch-state.js';
export { MAX_PUBLISH_ATTEMPTS } from './internal/patch-state.js';
export type { Baseline, BaselineTransition } from './internal/baseline.js';
export { DEFAULT_RECENT_TRANSITIONS, MAX_SCANNED_TRANSITIONS } from './internal/baseline.js';
export type { DanglingReferenceResult } from './internal/dangling-reference.js';
export { DANGLING_REFERENCE_MESSAGE, DANGLING_HINT_MAX_PATHS } from './internal/dangling-reference.js';
