/**
 * Following the namespace's index stream (`checkpoint-pointers.ts`) to a checkpoint: the point
 * reads a lookup by id makes, and the check of each pointer against the log.
 */
import { isStateflowError } from '@stateflow/core';
import type { Store, StreamId, Transition } from '@stateflow/store';
import { corruptPointer, headId, lookup } from './checkpoint-pointers.js';
import type { Pointer } from './checkpoint-pointers.js';
import { revisionMeta } from './transition-meta.js';
import type { RevisionMeta } from './transition-meta.js';

/** A checkpoint found through the index: where it is, and its put's meta (metadata, parent). */
export interface PointedCheckpoint extends Pointer {
  meta: RevisionMeta;
}

/**
 * Checkpoint `id` of `stream` through its index stream: the pointer, with the meta of the put
 * it names (read by `revisionSeq` + `transition`); `null` when the index says there is none, or
 * the put was compacted away (at or below `origin`); `undefined` when the index does not know.
 * @throws StateflowError `STORE_CORRUPT` when the pointer names a revision that is not that put.
 */
export async function readPointer(store: Store, stream: StreamId, indexStream: StreamId, id: string, origin: number): Promise<PointedCheckpoint | null | undefined> {
  const { found } = lookup(indexStream, await store.state(indexStream), id);
  if (found === null || found === undefined) return found;
  if (found.put <= origin) return null; // compacted away, as the log would say
  let transition: Transition;
  try {
    transition = await store.transition(await store.revisionSeq(stream, found.put));
  } catch (err) {
    if (isStateflowError(err, 'HISTORY_NOT_RETAINED')) return null;
    throw err;
  }
  const meta = revisionMeta(transition);
  if (meta?.op !== 'put' || meta.checkpointId !== id || transition.changes.find((c) => c.stream === stream)?.rev !== found.put) {
    throw corruptPointer(indexStream, `revision ${found.put} of ${stream} is not the put of checkpoint ${JSON.stringify(id)}`);
  }
  return { ...found, meta };
}

/** The id of the namespace's head through the index stream's `$head` (`null`: none; `undefined`: the index does not know). */
export async function readHeadId(store: Store, indexStream: StreamId): Promise<string | null | undefined> {
  return headId(indexStream, await store.state(indexStream));
}
