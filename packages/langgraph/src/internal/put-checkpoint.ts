/**
 * `put`: a checkpoint as one revision of its namespace's stream (README "The stored layout",
 * "Write fencing"), with its entry in the namespace's index stream.
 */
import type { JsonObject } from '@stateflow/core';
import type { ChannelVersions, Checkpoint } from '@langchain/langgraph-checkpoint';
import { CheckpointConflictError } from '../checkpoint-conflict.js';
import type { Snapshot } from './namespace-snapshots.js';
import { checkpointState } from './revision-state.js';
import { publishRevision } from './saver-context.js';
import type { SaverContext } from './saver-context.js';
import type { NamespaceRef } from './stream-names.js';

/** One put, checked. */
export interface PutRequest {
  ref: NamespaceRef;
  checkpoint: Checkpoint;
  /** `checkpoint.id`. */
  id: string;
  parentId: string | undefined;
  newVersions: ChannelVersions;
  /** The transition's meta (`putMeta`). */
  meta: JsonObject;
}

/**
 * One attempt at a put: against the index as this saver left it on a first attempt (the CAS
 * says whether another writer came between), caught up on the next ones.
 * @throws CONFLICT when the stream moved on (retry); {@link CheckpointConflictError} when
 *   fencing refuses it (final).
 */
export async function putAttempt(ctx: SaverContext, request: PutRequest, attempt: number): Promise<void> {
  const snapshot = await ctx.snapshots.take(request.ref.stream, { catchUp: attempt > 1 });
  const refusal = await fencingRefusal(ctx, request, snapshot);
  if (refusal !== null) {
    // Refused on what this saver last saw: only a caught-up index may refuse.
    if (!snapshot.fresh) return putAttempt(ctx, request, attempt + 1);
    throw refusal;
  }
  const texts = new Map<string, string>();
  const stored = await publishRevision(ctx, snapshot, await nextState(ctx, request, snapshot, texts), request.meta, { id: request.id, put: true });
  // The channels' stored forms as the state now holds them: the next put appends to these.
  if (stored !== undefined) snapshot.memo.remember(texts, stored['channels']);
}

/** The fencing refusal of a put whose parent this saver handed out at the head and is no longer there, or `null`. */
async function fencingRefusal(ctx: SaverContext, request: PutRequest, snapshot: Snapshot): Promise<CheckpointConflictError | null> {
  const { ref, parentId } = request;
  if (!ctx.fencing || !ctx.leases.holds(ref.stream, parentId)) return null;
  const head = await snapshot.index.head();
  if (head?.id === parentId) return null;
  return new CheckpointConflictError({
    stream: ref.stream,
    expected: parentId === undefined ? 'none' : ((await snapshot.index.get(parentId))?.latestRev ?? 'none'),
    actual: snapshot.rev,
    thread_id: ref.threadId,
    checkpoint_ns: ref.checkpointNs,
    parent_checkpoint_id: parentId ?? null,
    head_checkpoint_id: head?.id ?? null,
  });
}

/** The state of the new checkpoint: on its parent's latest state, keeping its own earlier writes and the early ones. */
async function nextState(ctx: SaverContext, request: PutRequest, snapshot: Snapshot, texts: Map<string, string>): Promise<JsonObject> {
  const { index } = snapshot;
  const state = await snapshot.current();
  const parent = request.parentId === undefined ? undefined : await index.get(request.parentId);
  // A repeated put of an id keeps its writes; only ids already read are looked up, so a first
  // put never reads the index or the log to find that its id is new.
  const previous = index.known(request.id);
  return checkpointState({
    serde: ctx.serde,
    memo: { memo: snapshot.memo, texts },
    base: parent === undefined ? {} : await ctx.snapshots.stateOf(snapshot, parent),
    checkpoint: request.checkpoint,
    parentId: request.parentId,
    newVersions: request.newVersions,
    writes: previous === undefined ? undefined : ((await ctx.snapshots.stateOf(snapshot, previous))['writes'] as JsonObject | undefined),
    earlyWrites: state['early_writes'] as JsonObject | undefined,
  });
}
