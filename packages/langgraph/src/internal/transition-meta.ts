/**
 * The `meta` of every transition this package publishes (README "The stored layout"): what a
 * revision is, in LangGraph's terms, so `stateflow log` and `show` read as the thread's history
 * and the saver can index a stream from its log alone.
 *
 * ```
 * { "langgraph": { "op": "put", "thread_id", "checkpoint_ns", "checkpoint_id",
 *                  "parent_checkpoint_id"?, "metadata": <CheckpointMetadata as the serializer's JSON> } }
 * { "langgraph": { "op": "writes", "thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "channels": [...] } }
 * { "langgraph": { "op": "delete", "thread_id" } }
 * ```
 *
 * Metadata is kept verbatim when the serializer's JSON is plain JSON the store accepts in
 * `meta`; otherwise (a lone surrogate, a non-JSON serializer type) it is `metadata_value` in the
 * stored-value form.
 */
import { hasOwn, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { CheckpointMetadata, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { Transition } from '@stateflow/store';
import { isWellFormed } from './json-mapping.js';
import { loadValue, storeValue } from './stored-value.js';

/** The kinds of revision. */
export type RevisionOp = 'put' | 'writes' | 'delete';

/** A decoded `meta.langgraph`. */
export interface RevisionMeta {
  op: RevisionOp;
  checkpointId: string | undefined;
  parentId: string | undefined;
  /** The put's metadata as stored (`metadata` or `metadata_value` member), for later decoding. */
  metadata: JsonObject | undefined;
}

/** `meta` of a put: the checkpoint, its parent and its LangGraph metadata. */
export async function putMeta(
  serde: SerializerProtocol,
  ids: { threadId: string; checkpointNs: string; checkpointId: string; parentId: string | undefined },
  metadata: CheckpointMetadata,
): Promise<JsonObject> {
  const meta: JsonObject = { op: 'put', thread_id: ids.threadId, checkpoint_ns: ids.checkpointNs, checkpoint_id: ids.checkpointId };
  if (ids.parentId !== undefined) meta['parent_checkpoint_id'] = ids.parentId;
  const plain = await plainJson(serde, metadata);
  if (plain !== undefined) meta['metadata'] = plain;
  else meta['metadata_value'] = await storeValue(serde, metadata);
  return { langgraph: meta };
}

/** The serializer's JSON of `value` when the store takes it as `meta` verbatim. */
async function plainJson(serde: SerializerProtocol, value: unknown): Promise<JsonValue | undefined> {
  const [type, bytes] = await serde.dumpsTyped(value);
  if (type !== 'json') return undefined;
  try {
    const parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as JsonValue;
    return isPlainMeta(parsed, META_MAX_DEPTH) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Nesting the store allows in `meta`, less the two levels this module wraps around metadata. */
const META_MAX_DEPTH = 500;

function isPlainMeta(value: JsonValue, depthLeft: number): boolean {
  if (typeof value === 'string') return isWellFormed(value);
  if (typeof value !== 'object' || value === null) return true;
  if (depthLeft < 1) return false;
  if (Array.isArray(value)) return value.every((item) => isPlainMeta(item, depthLeft - 1));
  return Object.keys(value).every((key) => isWellFormed(key) && isPlainMeta(value[key] as JsonValue, depthLeft - 1));
}

/** `meta` of a `putWrites` batch. */
export function writesMeta(ids: { threadId: string; checkpointNs: string; checkpointId: string }, taskId: string, channels: string[]): JsonObject {
  return {
    langgraph: { op: 'writes', thread_id: ids.threadId, checkpoint_ns: ids.checkpointNs, checkpoint_id: ids.checkpointId, task_id: taskId, channels },
  };
}

/** `meta` of a thread's deletion. */
export function deleteMeta(threadId: string): JsonObject {
  return { langgraph: { op: 'delete', thread_id: threadId } };
}

/** The LangGraph meaning of a transition, or `null` for one this package did not write. */
export function revisionMeta(transition: Transition): RevisionMeta | null {
  const lg = transition.meta?.['langgraph'];
  if (!isJsonObject(lg)) return null;
  const op = lg['op'];
  if (op !== 'put' && op !== 'writes' && op !== 'delete') return null;
  const checkpointId = typeof lg['checkpoint_id'] === 'string' ? lg['checkpoint_id'] : undefined;
  const parentId = typeof lg['parent_checkpoint_id'] === 'string' ? lg['parent_checkpoint_id'] : undefined;
  let metadata: JsonObject | undefined;
  if (hasOwn(lg, 'metadata')) metadata = { metadata: lg['metadata'] as JsonValue };
  else if (isJsonObject(lg['metadata_value'])) metadata = { metadata_value: lg['metadata_value'] };
  return { op, checkpointId, parentId, metadata };
}

/** The LangGraph metadata a put stored (see {@link RevisionMeta.metadata}). */
export async function loadMetadata(serde: SerializerProtocol, stored: JsonObject | undefined): Promise<CheckpointMetadata | undefined> {
  if (stored === undefined) return undefined;
  if (hasOwn(stored, 'metadata')) return serde.loadsTyped('json', new TextEncoder().encode(JSON.stringify(stored['metadata']))) as Promise<CheckpointMetadata>;
  return loadValue(serde, stored['metadata_value']) as Promise<CheckpointMetadata>;
}
