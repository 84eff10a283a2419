/**
 * What the parts of a `StateflowSaver` share: the store, LangGraph's serializer, the durability
 * of its publishes, its write-fencing memory and its namespace indexes — and the one way they
 * publish a revision.
 */
import { diff } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { Durability, Store } from '@stateflow/store';
import type { HeadLeases } from './head-leases.js';
import type { NamespaceSnapshots, Snapshot } from './namespace-snapshots.js';
import { stateCheckpointId } from './revision-state.js';
import type { ChannelVersion } from './revision-state.js';

/** A saver's shared parts. */
export interface SaverContext {
  store: Store;
  serde: SerializerProtocol;
  /** Durability of every revision the saver publishes; `undefined`: the store's. */
  durability: Durability | undefined;
  /** Write fencing on (README "Write fencing"). */
  fencing: boolean;
  leases: HeadLeases;
  snapshots: NamespaceSnapshots;
  /** The saver's first channel version (`getNextVersion(undefined)`). */
  firstVersion(): ChannelVersion;
}

/**
 * Which checkpoint a published state makes the stream's state, for the namespace's index stream:
 * a put, or writes switching back to an older checkpoint; `null` when the state stays the
 * checkpoint it is (writes on it, or early writes).
 */
export type PointsTo = { id: string; put: boolean } | null;

/**
 * Publish the revision whose state is `next` on the snapshot's revision (nothing when `next` is
 * that state): one transition holding the net patch of the checkpoint stream — and, when
 * `pointsTo` names the checkpoint that state is, its entry in the index stream — with `meta`,
 * expecting the snapshot's revision; then index the transition. Returns the state it left
 * (`undefined` when nothing was published).
 * @throws CONFLICT when another writer published first: the caller looks again.
 */
export async function publishRevision(ctx: SaverContext, snapshot: Snapshot, next: JsonObject, meta: JsonObject, pointsTo: PointsTo): Promise<JsonObject | undefined> {
  const before = await snapshot.current();
  const patch = diff(before, next);
  if (Object.keys(patch).length === 0) return undefined;
  const { index } = snapshot;
  const changes: Record<string, JsonObject> = { [index.stream]: patch };
  if (pointsTo !== null) changes[index.indexStream] = await index.pointerPatch(pointsTo.id, snapshot.rev + 1, { put: pointsTo.put, left: stateCheckpointId(before) });
  const durability = ctx.durability === undefined ? {} : { durability: ctx.durability };
  const result = await ctx.store.publish({ changes, expected: { [index.stream]: snapshot.rev }, meta, ...durability });
  if (result.status !== 'accepted') return undefined;
  index.apply(result.transition, before);
  return index.state;
}
