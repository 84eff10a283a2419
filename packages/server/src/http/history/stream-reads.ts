/**
 * What every history view reads first: a stream the caller may see, its state at a revision, and
 * the scope streams of an effective view.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Scope } from '@stateflow/http-contract';
import type { ShapeSelector, Store, StreamHead, StreamId } from '@stateflow/store';
import type { StreamVisibility } from '../stream-visibility.js';
import type { Owners } from './read-paths.js';

/**
 * Check that `stream` is visible; an invisible stream is reported like one that does not exist,
 * so a caller cannot probe other users' stream ids.
 * @throws NOT_FOUND
 */
export async function assertVisible(visibility: StreamVisibility, stream: StreamId): Promise<void> {
  if (!(await visibility.canSee(stream))) throw new StateflowError('NOT_FOUND', `No stream ${JSON.stringify(stream)} is visible to you`, { stream });
}

/**
 * The head of `stream`, which the caller must see.
 * @throws NOT_FOUND as {@link assertVisible}.
 */
export async function visibleHead(store: Store, visibility: StreamVisibility, stream: StreamId): Promise<StreamHead> {
  await assertVisible(visibility, stream);
  return store.head(stream);
}

/**
 * State at `rev` (0 is the empty state; the head is read from memory), in `shape` (default
 * `'stored'`: as written; store README "Shapes").
 * @throws as `store.stateAt`: `SHAPE_NOT_FOUND`, `SHAPE_UPCAST_FAILED` in a shape
 */
export async function stateAtRev(store: Store, head: StreamHead, rev: number, shape: ShapeSelector = 'stored'): Promise<JsonObject> {
  if (rev === 0) return {};
  if (shape !== 'stored') return store.stateAt(head.stream, rev, { shape });
  return rev === head.rev ? store.state(head.stream) : store.stateAt(head.stream, rev);
}

/**
 * The scope streams of an effective view, low → high priority, each checked visible.
 * @throws INPUT_INVALID when no owner is selected; NOT_FOUND as {@link assertVisible}.
 */
export async function selectedLayers(visibility: StreamVisibility, owners: Owners): Promise<Array<{ scope: Scope; stream: StreamId }>> {
  const layers: Array<{ scope: Scope; stream: StreamId }> = [];
  if (owners.global !== undefined) layers.push({ scope: 'global', stream: 'global' });
  if (owners.cwd !== undefined) layers.push({ scope: 'cwd', stream: `cwd:${owners.cwd}` });
  if (owners.session !== undefined) layers.push({ scope: 'session', stream: `session:${owners.session}` });
  if (layers.length === 0) {
    throw new StateflowError('INPUT_INVALID', 'Select at least one owner of the effective view: global=true, cwd=/abs/dir or session=<id>', { field: 'selection' });
  }
  for (const layer of layers) await assertVisible(visibility, layer.stream);
  return layers;
}
