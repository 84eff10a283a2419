/**
 * The state of a checkpoint stream at one revision, and the LangGraph values it holds
 * (README "The stored layout").
 *
 * Every revision's state describes exactly one checkpoint of its namespace, with the pending
 * writes stored against it so far:
 *
 * ```
 * {
 *   "checkpoint_id": "1f0…",
 *   "parent_checkpoint_id": "1f0…",                          (absent for a root checkpoint)
 *   "checkpoint": { "type": "json", "value": { "v": 4, "ts": …, "channel_versions": …, "versions_seen": … } },
 *   "channels": { "<channel>": { "version": 3, "type": "json", "value": <mapped value> } },
 *   "writes": { "<task_id>#<idx>": { "task_id", "idx", "channel", "task_path", "type", "value" } },
 *   "early_writes": { "<checkpoint_id>": { <writes> } }       (writes that arrived before their checkpoint)
 * }
 * ```
 *
 * `channels` holds the values a checkpoint can return: a channel whose version is new
 * (`newVersions`) gets the value the put carries; any other channel keeps the parent's entry
 * while its version is unchanged. So a checkpoint stores only what changed, and the net patch
 * of a step is the changed channels' changed parts (with mapped arrays, the appended items).
 * Keys of `channels` and `writes` are escaped like any other key of a mapped value.
 */
import { StateflowError, hasOwn, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { TASKS, WRITES_IDX_MAP, compareWritesSortKeys, maxChannelVersion, writesSortKey } from '@langchain/langgraph-checkpoint';
import type { ChannelVersions, Checkpoint, CheckpointPendingWrite, PendingWrite, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { AppendMemo } from './append-memo.js';
import { escapeKey, unescapeKey } from './json-mapping.js';
import { loadValue, storeValue } from './stored-value.js';

/** A channel version: LangGraph's savers use integers, custom ones strings. */
export type ChannelVersion = number | string;

/** A write as the state stores it (before the batch is merged). */
export interface StoredWrite {
  key: string;
  entry: JsonObject;
  /** Special writes (errors, interrupts, …) replace an earlier one; regular ones never do. */
  replaces: boolean;
}

/** The checkpoint id a state describes, or `undefined` for an empty (new or deleted) stream. */
export function stateCheckpointId(state: JsonObject): string | undefined {
  const id = state['checkpoint_id'];
  return typeof id === 'string' ? id : undefined;
}

/**
 * The state of a new checkpoint put on top of `base` (its parent's latest state, or `{}`).
 * `writes` are the checkpoint's own earlier writes (a repeated put of the same id keeps them);
 * `earlyWrites` is the current state's map of writes that are waiting for their checkpoint.
 */
export async function checkpointState(input: {
  serde: SerializerProtocol;
  /** Maps the serializer's text of each changed channel (the namespace's `AppendMemo`), recording each text in `texts`. */
  memo?: { memo: AppendMemo; texts: Map<string, string> };
  base: JsonObject;
  checkpoint: Checkpoint;
  parentId: string | undefined;
  newVersions: ChannelVersions;
  writes: JsonObject | undefined;
  earlyWrites: JsonObject | undefined;
}): Promise<JsonObject> {
  const { serde, base, checkpoint, parentId, newVersions } = input;
  const { id, channel_values: values, ...header } = checkpoint;
  const versions = checkpoint.channel_versions ?? {};
  const baseChannels = isJsonObject(base['channels']) ? base['channels'] : {};
  const channels: JsonObject = {};
  for (const channel of Object.keys(versions)) {
    const key = escapeKey(channel);
    const version = versions[channel] as ChannelVersion;
    if (hasOwn(newVersions, channel)) {
      const { memo } = input;
      const mapText = memo === undefined ? undefined : (text: string, maxDepth: number) => memo.memo.map(key, text, maxDepth, memo.texts);
      if (values !== undefined && hasOwn(values, channel)) channels[key] = { version, ...(await storeValue(serde, values[channel], mapText)) };
      continue;
    }
    const kept = baseChannels[key];
    if (isJsonObject(kept) && kept['version'] === version) channels[key] = kept;
  }
  const state: JsonObject = { checkpoint_id: id };
  if (parentId !== undefined) state['parent_checkpoint_id'] = parentId;
  state['checkpoint'] = await storeValue(serde, header);
  if (Object.keys(channels).length > 0) state['channels'] = channels;
  const early = { ...(input.earlyWrites ?? {}) };
  const arrived = early[escapeKey(id)];
  delete early[escapeKey(id)];
  const writes = { ...(input.writes ?? {}), ...(isJsonObject(arrived) ? arrived : {}) };
  if (Object.keys(writes).length > 0) state['writes'] = writes;
  if (Object.keys(early).length > 0) state['early_writes'] = early;
  return state;
}

/** Serialize one `putWrites` batch into stored writes (LangGraph's `WRITES_IDX_MAP` indexes). */
export async function storedWrites(serde: SerializerProtocol, writes: PendingWrite[], taskId: string, taskPath: string): Promise<StoredWrite[]> {
  return Promise.all(
    writes.map(async ([channel, value], i) => {
      const special = WRITES_IDX_MAP[channel];
      const idx = special ?? i;
      const entry: JsonObject = { task_id: taskId, idx, channel, task_path: taskPath, ...(await storeValue(serde, value)) };
      return { key: escapeKey(`${taskId}#${idx}`), entry, replaces: special !== undefined };
    }),
  );
}

/**
 * `existing` with `batch` merged the way every LangGraph saver merges writes: a regular write
 * whose (task, idx) is already stored is ignored (a retried task must not change what was
 * recorded); a special write replaces. `null` when nothing changes.
 */
export function mergeWrites(existing: JsonObject | undefined, batch: StoredWrite[]): JsonObject | null {
  const merged: JsonObject = { ...(existing ?? {}) };
  let changed = false;
  for (const { key, entry, replaces } of batch) {
    if (hasOwn(merged, key) && !replaces) continue;
    merged[key] = entry;
    changed = true;
  }
  return changed ? merged : null;
}

/** The decoded parts of a checkpoint state. */
export interface DecodedCheckpoint {
  checkpoint: Checkpoint;
  parentId: string | undefined;
  pendingWrites: CheckpointPendingWrite[];
}

/** What {@link decodeCheckpoint} needs besides the state. */
export interface DecodeContext {
  serde: SerializerProtocol;
  /** The parent's pending writes: read only for checkpoints older than format 4. */
  parentWrites(parentId: string): Promise<CheckpointPendingWrite[]>;
  /** The saver's first channel version (`getNextVersion(undefined)`). */
  firstVersion(): ChannelVersion;
}

/**
 * Decode a checkpoint state.
 * @throws StateflowError `STORE_CORRUPT` `{ detail }` when the state is not a checkpoint state.
 */
export async function decodeCheckpoint(context: DecodeContext, state: JsonObject): Promise<DecodedCheckpoint> {
  const { serde } = context;
  const id = stateCheckpointId(state);
  if (id === undefined) throw notCheckpoint('no checkpoint_id');
  const header = await loadValue(serde, state['checkpoint']);
  if (typeof header !== 'object' || header === null) throw notCheckpoint('checkpoint header is not an object');
  const channelValues: Record<string, unknown> = {};
  const channels = state['channels'];
  if (channels !== undefined) {
    if (!isJsonObject(channels)) throw notCheckpoint('channels is not an object');
    for (const key of Object.keys(channels)) channelValues[unescapeKey(key)] = await loadValue(serde, channels[key]);
  }
  const checkpoint = { ...(header as Omit<Checkpoint, 'id' | 'channel_values'>), id, channel_values: channelValues } as Checkpoint;
  const parent = state['parent_checkpoint_id'];
  const parentId = typeof parent === 'string' ? parent : undefined;
  if (checkpoint.v < 4 && parentId !== undefined) migratePendingSends(checkpoint, await context.parentWrites(parentId), context.firstVersion);
  return { checkpoint, parentId, pendingWrites: await decodeWrites(serde, state['writes']) };
}

/**
 * Checkpoints before format 4 kept pending sends as the parent's `TASKS` writes; LangGraph
 * reads them as the `TASKS` channel of the child (as every saver does).
 */
function migratePendingSends(checkpoint: Checkpoint, parentWrites: CheckpointPendingWrite[], firstVersion: () => ChannelVersion): void {
  checkpoint.channel_values[TASKS] = parentWrites.filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : firstVersion();
}

/** Pending writes of a state, in `writesSortKey` order (the order live execution applies them). */
export async function decodeWrites(serde: SerializerProtocol, writes: JsonValue | undefined): Promise<CheckpointPendingWrite[]> {
  if (writes === undefined) return [];
  if (!isJsonObject(writes)) throw notCheckpoint('writes is not an object');
  const entries = Object.values(writes).map((entry) => {
    if (!isJsonObject(entry) || typeof entry['task_id'] !== 'string' || typeof entry['channel'] !== 'string' || typeof entry['idx'] !== 'number') {
      throw notCheckpoint('a write lacks task_id, channel or idx');
    }
    const path = typeof entry['task_path'] === 'string' ? entry['task_path'] : '';
    return { entry, key: writesSortKey(path, entry['task_id'], entry['idx']) };
  });
  entries.sort((a, b) => compareWritesSortKeys(a.key, b.key));
  return Promise.all(
    entries.map(async ({ entry }) => [entry['task_id'] as string, entry['channel'] as string, await loadValue(serde, entry)] as CheckpointPendingWrite),
  );
}

function notCheckpoint(detail: string): StateflowError<'STORE_CORRUPT'> {
  return new StateflowError('STORE_CORRUPT', `A LangGraph checkpoint state in the store is malformed: ${detail}`, { detail });
}
