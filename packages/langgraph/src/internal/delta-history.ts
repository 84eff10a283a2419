/**
 * `getDeltaChannelHistory`: the delta-channel walk of LangGraph's `BaseCheckpointSaver` (same
 * result) over a namespace's index instead of one `getTuple` per ancestor.
 */
import type { JsonObject } from '@stateflow/core';
import type { CheckpointPendingWrite, DeltaChannelHistory } from '@langchain/langgraph-checkpoint';
import { escapeKey } from './json-mapping.js';
import type { Snapshot } from './namespace-snapshots.js';
import { decodeWrites } from './revision-state.js';
import type { SaverContext } from './saver-context.js';
import { loadValue } from './stored-value.js';

/**
 * For each of `channels`, the writes of the ancestors of `target` (nearest first in the walk,
 * oldest first in the result) back to the nearest ancestor that stores the channel's value (its
 * `seed`). `snapshot`: `target`'s namespace; `undefined` for a config without a thread.
 */
export async function deltaChannelHistory(ctx: SaverContext, snapshot: Snapshot | undefined, target: string | undefined, channels: string[]): Promise<Record<string, DeltaChannelHistory>> {
  const collected = new Map<string, CheckpointPendingWrite[]>(channels.map((ch) => [ch, []]));
  const seeds = new Map<string, unknown>();
  if (snapshot !== undefined) {
    const remaining = new Set(channels);
    let cursor = target === undefined ? undefined : (await snapshot.index.get(target))?.parentId;
    while (cursor !== undefined && remaining.size > 0) {
      const entry = await snapshot.index.get(cursor);
      if (entry === undefined) break;
      const state = await ctx.snapshots.stateOf(snapshot, entry);
      for (const [channel, value] of await storedSeeds(ctx, state, remaining)) seeds.set(channel, value);
      const writes = await decodeWrites(ctx.serde, state['writes']);
      for (let i = writes.length - 1; i >= 0; i--) {
        const write = writes[i] as CheckpointPendingWrite;
        if (remaining.has(write[1])) collected.get(write[1])?.push(write);
      }
      for (const channel of seeds.keys()) remaining.delete(channel);
      cursor = entry.parentId;
    }
  }
  const result: Record<string, DeltaChannelHistory> = {};
  for (const ch of channels) {
    const entry: DeltaChannelHistory = { writes: (collected.get(ch) ?? []).slice().reverse() };
    if (seeds.has(ch)) entry.seed = seeds.get(ch);
    result[ch] = entry;
  }
  return result;
}

/** The values a checkpoint state stores for channels of `wanted` (decoded). */
async function storedSeeds(ctx: SaverContext, state: JsonObject, wanted: Set<string>): Promise<Map<string, unknown>> {
  const stored = (state['channels'] ?? {}) as JsonObject;
  const found = new Map<string, unknown>();
  for (const ch of wanted) {
    const key = escapeKey(ch);
    if (!Object.prototype.hasOwnProperty.call(stored, key)) continue;
    const value = await loadValue(ctx.serde, stored[key]);
    if (value !== undefined) found.set(ch, value);
  }
  return found;
}
