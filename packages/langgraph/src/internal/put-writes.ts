/**
 * `putWrites`: a task's writes as one revision that adds them to their checkpoint's state
 * (README "The stored layout"): in place on the head, switching back to an older checkpoint,
 * or waiting in `early_writes` for a checkpoint not put yet.
 */
import type { JsonObject } from '@stateflow/core';
import { escapeKey } from './json-mapping.js';
import type { Snapshot } from './namespace-snapshots.js';
import { mergeWrites, stateCheckpointId } from './revision-state.js';
import type { StoredWrite } from './revision-state.js';
import { publishRevision } from './saver-context.js';
import type { PointsTo, SaverContext } from './saver-context.js';

/**
 * One attempt at storing `batch` against checkpoint `id` (nothing when every write is stored
 * already): against the index as this saver left it on a first attempt, caught up on the next.
 * @throws CONFLICT when the stream moved on: the caller tries again.
 */
export async function writesAttempt(ctx: SaverContext, stream: string, id: string, batch: StoredWrite[], meta: JsonObject, attempt: number): Promise<void> {
  const snapshot = await ctx.snapshots.take(stream, { catchUp: attempt > 1 });
  const next = await withWrites(ctx, snapshot, id, batch);
  if (next !== null) await publishRevision(ctx, snapshot, next.state, meta, next.pointsTo);
}

/**
 * The state after adding `batch` to checkpoint `id`: in place when the head state is that
 * checkpoint, else its latest state with the writes (the revision switches back to it), else
 * (not put yet) the head state with the writes waiting in `early_writes`. `null`: no change.
 */
async function withWrites(ctx: SaverContext, snapshot: Snapshot, id: string, batch: StoredWrite[]): Promise<{ state: JsonObject; pointsTo: PointsTo } | null> {
  const state = await snapshot.current();
  if (stateCheckpointId(state) === id) {
    const merged = mergeWrites(state['writes'] as JsonObject | undefined, batch);
    // The state stays this checkpoint: its latest revision is the head, the index needs nothing.
    return merged === null ? null : { state: { ...state, writes: merged }, pointsTo: null };
  }
  const entry = await snapshot.index.get(id);
  if (entry === undefined) {
    const early = { ...((state['early_writes'] ?? {}) as JsonObject) };
    const merged = mergeWrites(early[escapeKey(id)] as JsonObject | undefined, batch);
    if (merged === null) return null;
    early[escapeKey(id)] = merged;
    return { state: { ...state, early_writes: early }, pointsTo: null };
  }
  const target = await ctx.snapshots.stateOf(snapshot, entry);
  const merged = mergeWrites(target['writes'] as JsonObject | undefined, batch);
  if (merged === null) return null;
  const next: JsonObject = { ...target, writes: merged };
  delete next['early_writes'];
  if (state['early_writes'] !== undefined) next['early_writes'] = state['early_writes'];
  return { state: next, pointsTo: { id, put: false } };
}
