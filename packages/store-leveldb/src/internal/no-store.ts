import { StateflowError } from '@stateflow/core';

/** `NOT_FOUND { dir }`: `dir` holds no LevelDB database (no `CURRENT` file), and nothing was created there. */
export function noStoreAt(dir: string, what = 'no LevelDB CURRENT file'): StateflowError<'NOT_FOUND'> {
  return new StateflowError('NOT_FOUND', `No Stateflow store at ${dir} (${what}); nothing was created`, { dir });
}
