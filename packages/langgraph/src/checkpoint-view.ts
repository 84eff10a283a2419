/**
 * A checkpoint stream's revisions as LangGraph shows them (README "Reading a thread decoded"):
 * what `stateflow show` and `stateflow diff` print for a `langgraph:` stream, and what a history
 * page can print, instead of the stored form (README "The stored layout", "Value mapping"), whose
 * `$len` / `$null` tags and serializer records are there for the store, not for a reader.
 *
 * Values are decoded with the saver's serializer, then written as LangGraph's own HTTP API writes
 * them: a message (anything with `toDict()`) as its fields with its `type` (`{"content": "hi",
 * "type": "human", …}`), anything else as `JSON.stringify` writes it.
 */
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { unescapeKey } from './internal/json-mapping.js';
import { decodeWrites, stateCheckpointId } from './internal/revision-state.js';
import { loadValue } from './internal/stored-value.js';

/** A JSON value as a reader sees it: unlike a stored state, it may hold `null`. */
export type ShownValue = null | boolean | number | string | ShownValue[] | { [key: string]: ShownValue };

/** A pending write as LangGraph shows it. */
export interface PendingWriteView {
  task_id: string;
  channel: string;
  value: ShownValue;
}

/** One revision of a checkpoint stream: the checkpoint it describes, decoded. */
export interface CheckpointView {
  checkpoint_id: string;
  /** Absent for a thread's first checkpoint. */
  parent_checkpoint_id?: string;
  /** The checkpoint's time (LangGraph's `ts`, ISO 8601). */
  ts: string;
  /** Every channel value the checkpoint returns, by channel name. */
  channel_values: Record<string, ShownValue>;
  /** The writes stored against the checkpoint so far, in the order LangGraph applies them. */
  pending_writes: PendingWriteView[];
  /**
   * Writes that arrived for a checkpoint not put yet (they join it when it is put), with the id
   * of that checkpoint; absent when there are none.
   */
  early_writes?: EarlyWriteView[];
}

/** A write waiting for its checkpoint. */
export interface EarlyWriteView extends PendingWriteView {
  checkpoint_id: string;
}

/** Writes one revision has and the other lacks. */
export interface WritesChange<W> {
  added: W[];
  removed: W[];
}

/**
 * How one channel differs between two revisions: `appended` when the later value is a list
 * that starts with the whole earlier one (a message list that grew: the new items only);
 * `removed` when the earlier list starts with the whole later one (a fork back to an earlier
 * step: the items it no longer has); otherwise `before` and `after`, either absent when the
 * channel was absent.
 */
export type ChannelChange = { appended: ShownValue[] } | { removed: ShownValue[] } | { before?: ShownValue; after?: ShownValue };

/** What changed between two revisions of a checkpoint stream. */
export interface CheckpointChanges {
  /** The later revision's checkpoint, `null` when the thread was deleted. */
  checkpoint_id: string | null;
  parent_checkpoint_id?: string;
  /** The earlier revision's checkpoint, `null` before the first. */
  from_checkpoint_id: string | null;
  /** Only the channels whose value differs. */
  channel_values: Record<string, ChannelChange>;
  /** Only when the pending writes differ: those the later revision has and the earlier lacks, and the reverse. */
  pending_writes?: WritesChange<PendingWriteView>;
  /** Only when the early writes differ, as `pending_writes`. */
  early_writes?: WritesChange<EarlyWriteView>;
}

/** Options of {@link viewCheckpoint}. */
export interface ViewOptions {
  /** The serializer the saver wrote with. Default `JsonPlusSerializer` (the saver's default). */
  serde?: SerializerProtocol;
}

/**
 * The checkpoint a checkpoint stream's state describes (`store.stateAt(stream, rev)`), decoded;
 * `null` for an empty state (before the first revision, or a deleted thread).
 *
 * @example
 * ```js
 * const view = await viewCheckpoint(await store.stateAt('langgraph:chat-1', 3));
 * view.channel_values.messages; // [{ content: 'hi', type: 'human', … }, { content: 'you said hi', type: 'ai', … }]
 * ```
 * @throws StateflowError `STORE_CORRUPT` `{ detail }` when the state is not a checkpoint state
 */
export async function viewCheckpoint(state: JsonObject, options: ViewOptions = {}): Promise<CheckpointView | null> {
  const id = stateCheckpointId(state);
  if (id === undefined) return null;
  const serde = options.serde ?? new JsonPlusSerializer();
  const header = (await loadValue(serde, state['checkpoint'])) as { ts?: unknown } | null;
  const channelValues: Record<string, ShownValue> = {};
  const channels = state['channels'];
  if (isJsonObject(channels)) {
    for (const key of Object.keys(channels)) channelValues[unescapeKey(key)] = shown(await loadValue(serde, channels[key]));
  }
  const parent = state['parent_checkpoint_id'];
  const view: CheckpointView = {
    checkpoint_id: id,
    ...(typeof parent === 'string' ? { parent_checkpoint_id: parent } : {}),
    ts: typeof header?.ts === 'string' ? header.ts : '',
    channel_values: channelValues,
    pending_writes: await writesView(serde, state['writes'] as JsonValue | undefined),
  };
  const early = state['early_writes'];
  if (isJsonObject(early)) {
    const waiting: EarlyWriteView[] = [];
    for (const key of Object.keys(early)) {
      for (const write of await writesView(serde, early[key])) waiting.push({ checkpoint_id: unescapeKey(key), ...write });
    }
    if (waiting.length > 0) view.early_writes = waiting;
  }
  return view;
}

async function writesView(serde: SerializerProtocol, writes: JsonValue | undefined): Promise<PendingWriteView[]> {
  return (await decodeWrites(serde, writes)).map(([taskId, channel, value]) => ({ task_id: taskId, channel, value: shown(value) }));
}

/**
 * What changed from `before` to `after` (either `null`: no checkpoint), channel by channel:
 * what a step did, with a growing message list as the messages it added.
 */
export function checkpointChanges(before: CheckpointView | null, after: CheckpointView | null): CheckpointChanges {
  const changes: CheckpointChanges = {
    checkpoint_id: after?.checkpoint_id ?? null,
    ...(after?.parent_checkpoint_id === undefined ? {} : { parent_checkpoint_id: after.parent_checkpoint_id }),
    from_checkpoint_id: before?.checkpoint_id ?? null,
    channel_values: {},
  };
  const old = before?.channel_values ?? {};
  const now = after?.channel_values ?? {};
  for (const channel of new Set([...Object.keys(old), ...Object.keys(now)])) {
    const change = channelChange(old[channel], now[channel]);
    if (change !== null) changes.channel_values[channel] = change;
  }
  const pending = writesChange(before?.pending_writes ?? [], after?.pending_writes ?? []);
  if (pending !== null) changes.pending_writes = pending;
  const early = writesChange(before?.early_writes ?? [], after?.early_writes ?? []);
  if (early !== null) changes.early_writes = early;
  return changes;
}

function writesChange<W>(before: W[], after: W[]): WritesChange<W> | null {
  const added = after.filter((w) => !before.some((b) => isDeepStrictEqual(b, w)));
  const removed = before.filter((b) => !after.some((w) => isDeepStrictEqual(b, w)));
  return added.length > 0 || removed.length > 0 ? { added, removed } : null;
}

function channelChange(before: ShownValue | undefined, after: ShownValue | undefined): ChannelChange | null {
  if (isDeepStrictEqual(before, after)) return null;
  if (Array.isArray(before) && Array.isArray(after)) {
    if (startsWith(after, before)) return { appended: after.slice(before.length) };
    if (startsWith(before, after)) return { removed: before.slice(after.length) };
  }
  return { ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
}

/** Whether `list` begins with every item of `prefix`, in order. */
function startsWith(list: ShownValue[], prefix: ShownValue[]): boolean {
  return list.length > prefix.length && prefix.every((item, i) => isDeepStrictEqual(item, list[i]));
}

/**
 * A decoded value as JSON the way LangGraph's HTTP API writes it (its `serialiseAsDict`): an
 * object with `toDict()` (a LangChain message) becomes its `data` with its `type`.
 */
function shown(value: unknown): ShownValue {
  const text = JSON.stringify(value, function replace(this: Record<string, unknown>, key: string, json: unknown) {
    const raw = this[key];
    if (typeof raw === 'object' && raw !== null && typeof (raw as { toDict?: unknown }).toDict === 'function') {
      const { type, data } = (raw as { toDict(): { type: string; data: object } }).toDict();
      return { ...data, type };
    }
    return json;
  });
  return text === undefined ? null : (JSON.parse(text) as ShownValue);
}
