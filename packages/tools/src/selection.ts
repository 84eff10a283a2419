/**
 * Owner selection (DESIGN.md "Paths"): which owners a runtime reads and writes, and the store
 * streams they map to.
 */
import path from 'node:path';
import { StateflowError } from '@stateflow/core';
import type { OwnerScope } from '@stateflow/core';

/**
 * The owners a runtime serves.
 * - `global`: `true` selects the `global` stream.
 * - `cwd`: a directory; selects the stream `cwd:<absolute directory>` (resolved against the
 *   process working directory).
 * - `session`: a session id; selects `session:<id>`.
 * - `mode`: `active` projects and accepts the session `response`; `passive` omits it.
 */
export interface Selection {
  global?: true;
  cwd?: string;
  session?: string;
  mode: 'active' | 'passive';
}

/** One selected owner and its stream. */
export interface SelectedOwner {
  scope: OwnerScope;
  stream: string;
}

/**
 * The selected owners in overlay order (global → cwd → session), low to high priority.
 * @throws StateflowError `INPUT_INVALID` when `selection` is not an object, nothing is selected,
 *   the mode is unknown, `global` is not a boolean, or a cwd/session value is not a non-empty string.
 */
export function selectedOwners(selection: Selection): SelectedOwner[] {
  if (typeof selection !== 'object' || selection === null || Array.isArray(selection)) {
    throw new StateflowError('INPUT_INVALID', 'selection must be an object { global?, cwd?, session?, mode }.', { field: 'selection', reason: 'type' });
  }
  if (selection.mode !== 'active' && selection.mode !== 'passive') {
    throw new StateflowError('INPUT_INVALID', `selection mode must be "active" or "passive", got ${describe(selection.mode)}.`, {
      field: 'mode',
    });
  }
  if (selection.global !== undefined && typeof selection.global !== 'boolean') {
    throw new StateflowError('INPUT_INVALID', `selection global must be true or absent, got ${describe(selection.global)}.`, { field: 'global' });
  }
  const owners: SelectedOwner[] = [];
  if (selection.global === true) owners.push({ scope: 'global', stream: 'global' });
  if (selection.cwd !== undefined) {
    if (typeof selection.cwd !== 'string' || selection.cwd === '') {
      throw new StateflowError('INPUT_INVALID', `selection cwd must be a directory, got ${describe(selection.cwd)}.`, { field: 'cwd' });
    }
    owners.push({ scope: 'cwd', stream: `cwd:${path.resolve(selection.cwd)}` });
  }
  if (selection.session !== undefined) {
    if (typeof selection.session !== 'string' || selection.session === '') {
      throw new StateflowError('INPUT_INVALID', `selection session must be a session id, got ${describe(selection.session)}.`, { field: 'session' });
    }
    owners.push({ scope: 'session', stream: `session:${selection.session}` });
  }
  if (owners.length === 0) {
    throw new StateflowError('INPUT_INVALID', 'select at least one owner: global, cwd or session.', { field: 'selection' });
  }
  return owners;
}

/** A selection value for a message: strings quoted, anything else by its type. */
function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : `a ${typeof value}`;
}
