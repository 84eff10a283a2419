/**
 * Store options resolved into settings (DESIGN.md "Store model"; README "Options"): this module
 * owns checking the `StoreOptions` a caller passes to `openStoreOver`/`openMemoryStore` (and so
 * to every backend's opener), applying their defaults (K = 64, buffered durability, a 256-entry history cache, no retention, the
 * system clock), and the checked clock that every transition time is read from.
 */
import { StateflowError, describeInput } from '@stateflow/core';
import type { Durability, StoreOptions } from '../types.js';
import type { StoreObserver } from '../store-observer.js';
import { checkCount, checkOptions, checkedInput } from './validate.js';

/** Resolved options with defaults applied. */
export interface Settings {
  checkpointInterval: number;
  durability: Durability;
  cacheSize: number;
  retention: { keepRevisions: number } | null;
  clock: () => Date;
  /** The observer told of publishes, commits and reads, or `null`. */
  observer: StoreObserver | null;
  /** Automatic savepoints (README "Tags"), or `null` (off). */
  savepoints: { idleMs: number } | null;
}

/**
 * Check `options` and apply the defaults.
 * @throws INPUT_INVALID naming the offending option
 */
export function resolveSettings(options: StoreOptions = {}): Settings {
  checkOptions(options, 'options');
  if (options.clock !== undefined && typeof options.clock !== 'function') {
    throw new StateflowError('INPUT_INVALID', 'clock must be a function returning a Date', { field: 'clock' });
  }
  checkOptions(options.retention, 'retention');
  const k = options.checkpointInterval ?? 64;
  if (!Number.isSafeInteger(k) || k < 1) {
    throw new StateflowError('INPUT_INVALID', `checkpointInterval must be an integer ≥ 1, got ${describeInput(k)}`, { field: 'checkpointInterval' });
  }
  const cacheSize = options.cacheSize ?? 256;
  checkCount(cacheSize, 'cacheSize');
  const durability = options.durability ?? 'buffered';
  if (durability !== 'buffered' && durability !== 'fsync') {
    throw new StateflowError('INPUT_INVALID', `durability must be "buffered" or "fsync"`, { field: 'durability' });
  }
  const keep = options.retention?.keepRevisions;
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 1)) {
    throw new StateflowError('INPUT_INVALID', `retention.keepRevisions must be an integer ≥ 1, got ${describeInput(keep)}`, { field: 'retention.keepRevisions' });
  }
  return {
    checkpointInterval: k,
    durability,
    cacheSize,
    retention: keep === undefined ? null : { keepRevisions: keep },
    clock: checkedClock(options.clock ?? (() => new Date())),
    observer: checkedObserver(options.observer),
    savepoints: checkedSavepoints(options.savepoints),
  };
}

/** @throws INPUT_INVALID `{ field: 'savepoints.idleMs' }` unless absent or `{ idleMs }` with an integer ≥ 1 */
function checkedSavepoints(savepoints: StoreOptions['savepoints']): { idleMs: number } | null {
  if (savepoints === undefined) return null;
  checkOptions(savepoints, 'savepoints');
  const idleMs = savepoints.idleMs;
  if (!Number.isSafeInteger(idleMs) || idleMs < 1) {
    throw new StateflowError('INPUT_INVALID', `savepoints.idleMs must be an integer ≥ 1 (milliseconds), got ${describeInput(idleMs)}`, { field: 'savepoints.idleMs' });
  }
  return { idleMs };
}

/**
 * @throws INPUT_INVALID `{ field: 'observer' }` unless `observer` is absent or an object whose
 *   hooks are functions.
 */
function checkedObserver(observer: StoreObserver | undefined): StoreObserver | null {
  if (observer === undefined) return null;
  const hooks = typeof observer === 'object' && observer !== null ? [observer.published, observer.committed, observer.read] : [null];
  if (hooks.some((hook) => hook !== undefined && typeof hook !== 'function')) {
    throw new StateflowError('INPUT_INVALID', 'observer must be an object whose published, committed and read hooks, when present, are functions', { field: 'observer' });
  }
  return observer;
}

/** A clock whose every reading is checked: a transition time must be a valid Date. */
function checkedClock(clock: () => Date): () => Date {
  return () => {
    const now = checkedInput('clock', () => clock());
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new StateflowError('INPUT_INVALID', `the clock option returned ${describeInput(now)}, not a valid Date`, { field: 'clock' });
    }
    return now;
  };
}
