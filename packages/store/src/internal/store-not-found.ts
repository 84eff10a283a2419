import { StateflowError } from '@stateflow/core';

/** `NOT_FOUND { dir }`: `dir` holds no Stateflow store (and nothing was created there). */
export function storeNotFound(dir: string, why: string): StateflowError<'NOT_FOUND'> {
  return new StateflowError('NOT_FOUND', `No Stateflow store at ${dir} (${why}); nothing was created`, { dir });
}
