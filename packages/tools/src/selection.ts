/**
 * Owner selection (DESIGN.md "Paths"): which owners a runtime reads and writes, and the store
 * streams they map to.
 */
import path from 'node:path';
import { StateflowError, elidePath } from '@stateflow/core';
import type { OwnerScope } from '@stateflow/core';

/**
 * The owners a runtime serves.
 * - `global`: `true` selects the `global` stream.
 * - `cwd`: an absolute directory path; selects the stream `cwd:<directory>` (normalised with
 *   `path.resolve`, so `/p/./q/` and `/p/q` are one owner). The directory is a name for the
 *   owner: it is not required to exist on this machine (a server may serve a client's cwd).
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

/** The members a {@link Selection} may have. */
const SELECTION_MEMBERS: readonly string[] = ['global', 'cwd', 'session', 'mode'];

/**
 * The selected owners in overlay order (global → cwd → session), low to high priority.
 * @throws StateflowError `INPUT_INVALID` (`details.field` names the member) when `selection` is
 *   not an object, has a member other than `global`, `cwd`, `session`, `mode`, nothing is
 *   selected, the mode is missing or unknown, `global` is not `true`, `cwd` is not an absolute
 *   path, or `session` is not a non-empty string.
 */
export function selectedOwners(selection: Selection): SelectedOwner[] {
  if (typeof selection !== 'object' || selection === null || Array.isArray(selection)) {
    throw new StateflowError('INPUT_INVALID', 'selection must be an object { global?, cwd?, session?, mode }.', { field: 'selection', reason: 'type' });
  }
  const unknown = Object.keys(selection).find((key) => !SELECTION_MEMBERS.includes(key));
  if (unknown !== undefined) {
    throw new StateflowError(
      'INPUT_INVALID',
      `selection does not accept ${describe(unknown)}; its members are global, cwd, session and mode.`,
      { field: `selection.${elidePath(unknown)}`, reason: 'unknown-field' },
    );
  }
  if (selection.mode === undefined) {
    throw new StateflowError('INPUT_INVALID', 'selection.mode is required: "active" or "passive".', { field: 'selection.mode', reason: 'required' });
  }
  if (selection.mode !== 'active' && selection.mode !== 'passive') {
    throw new StateflowError('INPUT_INVALID', `selection.mode must be "active" or "passive", got ${describe(selection.mode)}.`, {
      field: 'selection.mode',
      reason: 'enum',
    });
  }
  if (selection.global !== undefined && selection.global !== true) {
    throw new StateflowError('INPUT_INVALID', `selection.global must be true or absent, got ${describe(selection.global)}.`, {
      field: 'selection.global',
      reason: 'type',
    });
  }
  const owners: SelectedOwner[] = [];
  if (selection.global === true) owners.push({ scope: 'global', stream: 'global' });
  if (selection.cwd !== undefined) {
    if (typeof selection.cwd !== 'string' || selection.cwd === '') {
      throw new StateflowError('INPUT_INVALID', `selection.cwd must be an absolute directory path, got ${describe(selection.cwd)}.`, {
        field: 'selection.cwd',
        reason: 'type',
      });
    }
    if (!path.isAbsolute(selection.cwd)) {
      throw new StateflowError(
        'INPUT_INVALID',
        `selection.cwd must be an absolute directory path, got the relative path ${describe(selection.cwd)}; resolve it first (e.g. ${describe(path.resolve(selection.cwd))} here).`,
        { field: 'selection.cwd', reason: 'relative' },
      );
    }
    owners.push({ scope: 'cwd', stream: `cwd:${path.resolve(selection.cwd)}` });
  }
  if (selection.session !== undefined) {
    if (typeof selection.session !== 'string' || selection.session === '') {
      throw new StateflowError('INPUT_INVALID', `selection.session must be a session id, got ${describe(selection.session)}.`, {
        field: 'selection.session',
        reason: 'type',
      });
    }
    owners.push({ scope: 'session', stream: `session:${selection.session}` });
  }
  if (owners.length === 0) {
    throw new StateflowError('INPUT_INVALID', 'select at least one owner: global, cwd or session.', { field: 'selection', reason: 'empty' });
  }
  return owners;
}

/** A selection value for a message: strings quoted (at most 200 characters, `elidePath`), anything else by its type. */
function describe(value: unknown): string {
  if (typeof value !== 'string') return value === null ? 'null' : `a ${typeof value}`;
  return JSON.stringify(elidePath(value));
}
