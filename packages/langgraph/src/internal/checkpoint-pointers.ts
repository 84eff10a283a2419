/**
 * The namespace's index stream (README "Finding a checkpoint"): checkpoint id → the revisions of
 * the checkpoint stream that hold it, so a checkpoint id is a point read in any process.
 *
 * `langgraph-index:<thread>[/<namespace>]` (`indexStreamOf`) has this state:
 *
 * ```
 * {
 *   "$from": 1,                                   the first checkpoint-stream revision indexed
 *   "$head": "<checkpoint id>",                   the namespace's most recently put checkpoint
 *   "$state": "<checkpoint id>",                  the checkpoint the stream's head state is
 *   "$ids": { "<0–63>": { "<0–63>": { "<escaped checkpoint id>": { "put": 12, "at": 14 } } } }
 * }
 * ```
 *
 * - `$ids`: each entry under two buckets, the low 6 bits of the first and of the second byte of
 *   the SHA-256 of its key, so that every object a put changes has at most 64 keys (up to some
 *   260,000 checkpoints) and a put costs the same at step 10,000 as at step 10, whatever the
 *   store copies to apply it. An index written before buckets has its entries at the top level
 *   beside `$from` (one object of every checkpoint): it is read as it is, and its next write
 *   moves every entry into `$ids`.
 * - `put`: the revision that put the checkpoint (the latest put of that id); its transition's
 *   meta carries the checkpoint's metadata and parent.
 * - `at`: the latest revision whose state is that checkpoint — the one that holds all its
 *   pending writes — as of the last time the stream's state left it (a put of another
 *   checkpoint, or writes that switch the state back to an older one, record where the state
 *   they leave ended: `at` = their revision − 1). While the checkpoint is `$state` its latest
 *   revision is the stream's head: writes on the head state (a task's writes on the checkpoint
 *   just put, the common case) add no index entry, and their transition changes one stream.
 * - `$from`: every checkpoint put at or after that revision has its entry. `1`: all of them, so
 *   an id without an entry is not in the namespace; above 1 (a stream written before this index
 *   existed, or one whose thread was deleted), an id without an entry is looked for in the log.
 * - `$head`: the id of the latest put (README "Which checkpoint is the head"); `$state`: the
 *   checkpoint the head state is (set by every put and switching write).
 *   Keys are escaped as in every mapped value (`escapeKey`), so no id reads as a tag (`$from`,
 *   `$head`, `$state`, `$ids`).
 *
 * Each entry is written in the same transition as the revision it names (one atomic batch, the
 * checkpoint stream's CAS deciding both), so the index never names a revision the log does not
 * hold. It is a pointer, not a copy: what a pointer leads to is read from the log and checked
 * (the put's meta names the same checkpoint, the state at `at` is that checkpoint); a pointer the
 * log contradicts is `STORE_CORRUPT`. A thread's deletion sets its index stream to `{}` too.
 */
import { createHash } from 'node:crypto';
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { escapeKey } from './json-mapping.js';

/** Where a checkpoint lives in its checkpoint stream. */
export interface Pointer {
  /** The revision of its (latest) put. */
  put: number;
  /** The latest revision whose state is the checkpoint when the state last left it. */
  at: number;
  /** Whether it is the checkpoint the head state is (`$state`): its latest revision is then the head. */
  isState: boolean;
}

/**
 * What the index says of one id: where it lives, that it does not exist (`null`), or nothing
 * (`undefined`: read the log; also for an entry holding only writes, of a checkpoint put before
 * the index started).
 */
export type Lookup = { found: Pointer } | { found: null } | { found: undefined };

/** The index key of the first indexed revision. */
const FROM_KEY = '$from';
/** The index key of the head's id. */
const HEAD_KEY = '$head';
/** The index key of the checkpoint the head state is. */
const STATE_KEY = '$state';
/** The index key of the bucketed entries. */
const IDS_KEY = '$ids';
const TAGS = new Set([FROM_KEY, HEAD_KEY, STATE_KEY, IDS_KEY]);

/**
 * What a writer knows of the index state: `'bucketed'` (entries in `$ids`), or the state itself
 * (empty, or written before buckets: its entries move into `$ids` with this write).
 */
export type IndexForm = 'bucketed' | JsonObject;

/**
 * The patch of the index stream for a revision `rev` of the checkpoint stream that makes its
 * state checkpoint `id`: a put of it (`put: true`), or writes that switch the state back to it.
 * `left`: the checkpoint the state was before (its run ends at `rev − 1`); `index`: the index
 * as the writer knows it (without `$from` yet, this revision starts it; with entries outside
 * `$ids`, they move there). Writes on the state's own checkpoint need no patch.
 */
export function pointerPatch(id: string, rev: number, options: { put: boolean; left: string | undefined; index: IndexForm }): JsonObject {
  const { index } = options;
  const patch: JsonObject = {};
  const entries = new Map<string, JsonValue>();
  if (index !== 'bucketed') {
    for (const key of Object.keys(index)) {
      if (TAGS.has(key)) continue;
      entries.set(key, index[key] as JsonValue);
      setOwn(patch, key, null);
    }
  }
  const set = (key: string, fields: JsonObject) => {
    const kept = entries.get(key);
    entries.set(key, isJsonObject(kept) ? { ...kept, ...fields } : fields);
  };
  if (options.left !== undefined && options.left !== id) set(escapeKey(options.left), { at: rev - 1 });
  set(escapeKey(id), options.put ? { put: rev, at: rev } : { at: rev });
  patch[IDS_KEY] = bucketed(entries);
  if (options.put) patch[HEAD_KEY] = id;
  patch[STATE_KEY] = id;
  if (index !== 'bucketed' && !hasStart(index)) patch[FROM_KEY] = rev;
  return patch;
}

/** `$ids` holding `entries` (escaped id → entry) in their buckets: the state's, or a patch of it. */
export function bucketed(entries: Map<string, JsonValue>): JsonObject {
  const ids: JsonObject = {};
  for (const [key, entry] of entries) {
    const [outer, inner] = bucketsOf(key);
    const level = (ids[outer] ??= {}) as JsonObject;
    setOwn((level[inner] ??= {}) as JsonObject, key, entry);
  }
  return ids;
}

/** `object[key] = value` as an own data key, also for an id like `__proto__`. */
function setOwn(object: JsonObject, key: string, value: JsonValue | null): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function bucketsOf(key: string): [string, string] {
  const digest = createHash('sha256').update(key).digest();
  return [String(digest.readUInt8(0) & 63), String(digest.readUInt8(1) & 63)];
}

/** Whether the index state has its entries in `$ids` (every index the saver writes, once written). */
export function isBucketed(indexState: JsonObject): boolean {
  return indexState[IDS_KEY] !== undefined;
}

/** Whether the index state has its `$from` (a revision of the checkpoint stream started it). */
export function hasStart(indexState: JsonObject): boolean {
  return indexState[FROM_KEY] !== undefined;
}

/**
 * The head's id as the index state says it: `null` when it is sure there is no put (an index
 * started with the stream and no put), `undefined` when it does not know (read the log).
 * @throws StateflowError `STORE_CORRUPT` when `$head` is not a non-empty string.
 */
export function headId(indexStream: string, indexState: JsonObject): string | null | undefined {
  const head = indexState[HEAD_KEY];
  if (head === undefined) return indexState[FROM_KEY] === 1 ? null : undefined;
  if (typeof head !== 'string' || head === '') throw corruptPointer(indexStream, '$head is not a checkpoint id');
  return head;
}

/**
 * What the index state says of checkpoint `id`.
 * @throws StateflowError `STORE_CORRUPT` `{ stream, detail }` when the entry is not a pointer.
 */
export function lookup(indexStream: string, indexState: JsonObject, id: string): Lookup {
  const key = escapeKey(id);
  const entry = isBucketed(indexState) ? bucketEntry(indexStream, indexState[IDS_KEY] as JsonValue, key) : ownEntry(indexState, key);
  if (entry === undefined) {
    const from = indexState[FROM_KEY];
    return { found: from === 1 ? null : undefined };
  }
  if (!isJsonObject(entry) || !isRevision(entry['at']) || (entry['put'] !== undefined && !isRevision(entry['put']))) {
    throw corruptPointer(indexStream, `the entry of checkpoint ${JSON.stringify(id)} is not { put?, at } revisions`);
  }
  if (entry['put'] === undefined) return { found: undefined };
  return { found: { put: entry['put'] as number, at: entry['at'] as number, isState: indexState[STATE_KEY] === id } };
}

/** The entry of `key` in `$ids`, or `undefined`. @throws STORE_CORRUPT when a bucket is not an object. */
function bucketEntry(indexStream: string, ids: JsonValue, key: string): JsonValue | undefined {
  let level = ids;
  for (const bucket of bucketsOf(key)) {
    if (!isJsonObject(level)) throw corruptPointer(indexStream, `a bucket of $ids is not an object`);
    level = ownEntry(level, bucket) as JsonValue;
    if (level === undefined) return undefined;
  }
  if (!isJsonObject(level)) throw corruptPointer(indexStream, `a bucket of $ids is not an object`);
  return ownEntry(level, key);
}

function ownEntry(object: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function isRevision(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** The error for a pointer the log contradicts (or that is not a pointer). */
export function corruptPointer(indexStream: string, detail: string): StateflowError<'STORE_CORRUPT'> {
  return new StateflowError('STORE_CORRUPT', `The LangGraph checkpoint index ${indexStream} disagrees with the log: ${detail}`, { stream: indexStream, detail });
}
