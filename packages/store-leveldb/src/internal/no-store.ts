import { StateflowError } from '@stateflow/core';

/** `NOT_FOUND { dir }`: `dir` holds no LevelDB database (no `CURRENT` file), and nothing was created there. */
export function noStoreAt(dir: string): StateflowError<'NOT_FOUND'> {
  return new StateflowError('NOT_FOUND', `No Stateflow store at ${dir} (no LevelDB CURRENT file); nothing was created`, { dir });
}
