/**
 * The shape a tree level of the history page is shown in (store README "Shapes"): the query's
 * text as the store's selector, and what the answer says of the stream's shape at the revision.
 */
import { getShape, shapeOfStream, versionAt } from '@stateflow/store';
import type { ShapeSelector, Store, StreamHead } from '@stateflow/store';
import type { StreamNode } from '@stateflow/http-contract';

/** The selector of a `shape` query (`stored`, `current` or a version number; absent: `stored`). */
export function shapeSelector(text: string | undefined): ShapeSelector {
  if (text === undefined || text === 'stored' || text === 'current') return text ?? 'stored';
  return Number(text);
}

/**
 * The shape that governs the stream now, the version revision `rev` was written in and the one
 * it is shown in, or `undefined` when no shape governs the stream.
 */
export async function nodeShape(store: Store, head: StreamHead, rev: number, shape: ShapeSelector): Promise<StreamNode['shape']> {
  const name = await shapeOfStream(store, head.stream);
  if (name === null) return undefined;
  const latest = (await getShape(store, name)).versions.length;
  // The origin's transition may have been pruned with the history below it.
  const written = rev === 0 ? 0 : rev <= head.origin ? null : ((await versionAt(store, head.stream, rev))?.version ?? 0);
  const shown = shape === 'current' ? latest : shape === 'stored' ? written ?? 0 : shape;
  return { name, written, shown, latest };
}
