/**
 * Reading through a retention archive (`show --archive`, `diff --archive`; store README
 * "Retention", reading what a run archived): what the store no longer holds is read from the archive — a
 * pruned transition as archived, a revision below a stream's origin replayed from the archive —
 * only after the archive verified against the store (`auditArchive`: the digest the store
 * recorded, every hash, and the link of its chain to the store's). The store is never written:
 * its log stays append-only and its chain as it was.
 */
import path from 'node:path';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { OpenArchive, ShapeSelector, Store, StreamId, Transition } from '@stateflow/store';
import type { NumberOrTag } from './arguments.js';
import { stateAtPoint } from './tag-points.js';

/**
 * The archive `file` (relative to `cwd`), opened once it verified clean against `store`.
 * @throws StateflowError `INPUT_INVALID` `{ field: 'archive', reason: 'unverified' }` naming the
 *   problems (`stateflow audit --archive FILE` lists them); `NOT_FOUND`; `INPUT_INVALID`
 *   `{ field: 'archive', reason: 'malformed' }`.
 */
export async function verifiedArchive(store: Store, cwd: string, file: string): Promise<OpenArchive> {
  const { auditArchive, openArchive } = await import('@stateflow/store');
  const resolved = path.resolve(cwd, file);
  const report = await auditArchive(store, resolved);
  if (report.problems.length > 0) {
    const codes = [...new Set(report.problems.map((p) => p.code))].join(', ');
    throw new StateflowError('INPUT_INVALID', `archive ${report.name} does not verify against the store (${codes}); stateflow audit --archive ${file} lists the problems`, { field: 'archive', reason: 'unverified' });
  }
  return openArchive(resolved);
}

/** The state of `stream` at `point`: the store's, else (pruned there) the archive's. */
export async function stateAtOrArchived(store: Store, archive: OpenArchive | undefined, stream: StreamId, point: NumberOrTag, shape: ShapeSelector): Promise<JsonObject> {
  try {
    return await stateAtPoint(store, stream, point, shape);
  } catch (err) {
    if (archive === undefined || typeof point !== 'number' || shape !== 'stored' || !isStateflowError(err, 'HISTORY_NOT_RETAINED')) throw err;
    return archive.stateAt(stream, point);
  }
}

/** Transition `seq`: the store's, else (pruned there) the archive's. */
export async function transitionOrArchived(store: Store, archive: OpenArchive | undefined, seq: number): Promise<Transition> {
  try {
    return await store.transition(seq);
  } catch (err) {
    const archived = archive?.transitions.find((t) => t.seq === seq);
    if (archived === undefined || !isStateflowError(err, 'HISTORY_NOT_RETAINED')) throw err;
    return archived;
  }
}
