export { StateflowSaver } from './stateflow-saver.js';
export type { StateflowSaverOptions } from './stateflow-saver.js';
export { CheckpointConflictError } from './checkpoint-conflict.js';
export type { CheckpointConflictDetails } from './checkpoint-conflict.js';
