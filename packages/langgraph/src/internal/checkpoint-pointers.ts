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
 *   "<escaped checkpoint id>": { "put": 12, "at": 14 }
 * }
 * ```
 *
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
 *   Keys are escaped as in every mapped value (`escapeKey`), so no id reads as `$from` or `$head`.
 *
 * Each entry is written in the same transition as the revision it names (one atomic batch, the
 * checkpoint stream's CAS deciding both), so the index never names a revision the log does not
 * hold. It is a pointer, not a copy: what a pointer leads to is read from the log and checked
 * (the put's meta names the same checkpoint, the state at `at` is that checkpoint); a pointer the
 * log contradicts is `STORE_CORRUPT`. A thread's deletion sets its index stream to `{}` too.
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
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

/**
 * The patch of the index stream for a revision `rev` of the checkpoint stream that makes its
 * state checkpoint `id`: a put of it (`put: true`), or writes that switch the state back to it.
 * `left`: the checkpoint the state was before (its run ends at `rev − 1`); `starts`: the index
 * has no `$from` yet, so this revision starts it. Writes on the state's own checkpoint need no patch.
 */
export function pointerPatch(id: string, rev: number, options: { put: boolean; left: string | undefined; starts: boolean }): JsonObject {
  const patch: JsonObject = {};
  if (options.left !== undefined && options.left !== id) patch[escapeKey(options.left)] = { at: rev - 1 };
  patch[escapeKey(id)] = options.put ? { put: rev, at: rev } : { at: rev };
  if (options.put) patch[HEAD_KEY] = id;
  patch[STATE_KEY] = id;
  if (options.starts) patch[FROM_KEY] = rev;
  return patch;
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
  const entry = indexState[escapeKey(id)];
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

function isRevision(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** The error for a pointer the log contradicts (or that is not a pointer). */
export function corruptPointer(indexStream: string, detail: string): StateflowError<'STORE_CORRUPT'> {
  return new StateflowError('STORE_CORRUPT', `The LangGraph checkpoint index ${indexStream} disagrees with the log: ${detail}`, { stream: indexStream, detail });
}
