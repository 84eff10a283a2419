export { StateflowSaver } from './stateflow-saver.js';
export type { StateflowSaverOptions } from './stateflow-saver.js';
export { CheckpointConflictError } from './checkpoint-conflict.js';
export type { CheckpointConflictDetails } from './checkpoint-conflict.js';
export { viewCheckpoint, checkpointChanges } from './checkpoint-view.js';
export type { CheckpointView, CheckpointChanges, ChannelChange, EarlyWriteView, PendingWriteView, ShownValue, ViewOptions, WritesChange } from './checkpoint-view.js';
