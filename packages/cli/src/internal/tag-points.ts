/**
 * Reading at a tag where a command takes a seq or a revision (store README "Tags"): the tag's
 * seq, or a stream's state as of it.
 */
import type { JsonObject } from '@stateflow/core';
import type { ShapeSelector, Store, StreamId } from '@stateflow/store';
import type { NumberOrTag } from './arguments.js';

/** The seq `point` names (a tag's seq). @throws TAG_NOT_FOUND */
export async function seqOf(store: Store, point: NumberOrTag): Promise<number> {
  if (typeof point === 'number') return point;
  const { resolveTag } = await import('@stateflow/store');
  return (await resolveTag(store, point.tag)).seq;
}

/** `stream`'s state at revision `point`, or as of the tag it names, in `shape` (default as stored). @throws TAG_NOT_FOUND, REVISION_NOT_FOUND, HISTORY_NOT_RETAINED */
export async function stateAtPoint(store: Store, stream: StreamId, point: NumberOrTag, shape: ShapeSelector = 'stored'): Promise<JsonObject> {
  if (typeof point === 'number') return store.stateAt(stream, point, { shape });
  const { revisionAtTag } = await import('@stateflow/store');
  return store.stateAt(stream, await revisionAtTag(store, stream, point.tag), { shape });
}
