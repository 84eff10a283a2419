/**
 * Reading checkpoints back as LangGraph's `CheckpointTuple`s (`getTuple`, `list`): the state of
 * a checkpoint's latest revision decoded, with the metadata of its put.
 */
import { isDeepStrictEqual } from 'node:util';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { CheckpointEntry } from './namespace-index.js';
import type { Snapshot } from './namespace-snapshots.js';
import { decodeCheckpoint, decodeWrites, stateCheckpointId } from './revision-state.js';
import type { DecodeContext } from './revision-state.js';
import type { SaverContext } from './saver-context.js';
import { configurable, identifier, namespaceText, threadIdText } from './saver-input.js';
import { belongsToThread, namespaceRef, parseStream, threadStream } from './stream-names.js';
import type { NamespaceRef } from './stream-names.js';
import { loadMetadata } from './transition-meta.js';

/**
 * A tuple of `entry`, or `undefined` when compaction removed it since it was indexed.
 * @throws StateflowError `STORE_CORRUPT` when the state at the entry's revision is another checkpoint.
 */
export async function checkpointTuple(ctx: SaverContext, ref: NamespaceRef, snapshot: Snapshot, entry: CheckpointEntry): Promise<CheckpointTuple | undefined> {
  let state: JsonObject;
  try {
    state = await ctx.snapshots.stateOf(snapshot, entry);
  } catch (err) {
    if (isStateflowError(err, 'HISTORY_NOT_RETAINED')) return undefined;
    throw err;
  }
  if (stateCheckpointId(state) !== entry.id) {
    const detail = `revision ${entry.latestRev} of ${ref.stream} holds checkpoint ${JSON.stringify(stateCheckpointId(state) ?? null)}, not ${JSON.stringify(entry.id)}`;
    throw new StateflowError('STORE_CORRUPT', `A LangGraph checkpoint is not where its stream's log and index say: ${detail}`, { stream: ref.stream, detail });
  }
  const decoded = await decodeCheckpoint(decodeContext(ctx, snapshot), state);
  const tuple: CheckpointTuple = {
    config: { configurable: { thread_id: ref.threadId, checkpoint_ns: ref.checkpointNs, checkpoint_id: entry.id } },
    checkpoint: decoded.checkpoint,
    metadata: await loadMetadata(ctx.serde, entry.metadata),
    pendingWrites: decoded.pendingWrites,
  };
  if (decoded.parentId !== undefined) {
    tuple.parentConfig = { configurable: { thread_id: ref.threadId, checkpoint_ns: ref.checkpointNs, checkpoint_id: decoded.parentId } };
  }
  return tuple;
}

function decodeContext(ctx: SaverContext, snapshot: Snapshot): DecodeContext {
  return {
    serde: ctx.serde,
    parentWrites: async (parentId) => {
      const parent = await snapshot.index.get(parentId);
      return parent === undefined ? [] : decodeWrites(ctx.serde, (await ctx.snapshots.stateOf(snapshot, parent))['writes']);
    },
    firstVersion: ctx.firstVersion,
  };
}

/** Whether the put's metadata has each key of `filter` equal (deeply) to its value. */
export async function metadataMatches(ctx: SaverContext, entry: CheckpointEntry, filter: Record<string, unknown>): Promise<boolean> {
  const metadata = ((await loadMetadata(ctx.serde, entry.metadata)) ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => isDeepStrictEqual(metadata[key], value));
}

/** The namespaces `list` walks for `config`, in stream order. */
export async function listedNamespaces(ctx: SaverContext, config: RunnableConfig): Promise<NamespaceRef[]> {
  const threadId = configurable(config)['thread_id'];
  const checkpointNs = configurable(config)['checkpoint_ns'];
  if (threadId !== undefined && checkpointNs !== undefined) return [namespaceRef(threadIdText(threadId), namespaceText(checkpointNs))];
  const root = threadId === undefined ? undefined : threadStream(identifier(threadIdText(threadId), 'thread_id'));
  const refs: NamespaceRef[] = [];
  for (const { stream } of await ctx.store.streams()) {
    if (root !== undefined && !belongsToThread(stream, root)) continue;
    const ref = parseStream(stream);
    if (ref !== null && (checkpointNs === undefined || ref.checkpointNs === checkpointNs)) refs.push(ref);
  }
  return refs;
}
