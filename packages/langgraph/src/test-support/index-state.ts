/**
 * An index stream's state (`internal/checkpoint-pointers.ts`) read the way tests state it: the
 * entries of `$ids` at the top level beside `$from`, `$head` and `$state` — after checking that
 * each entry sits in its own buckets and that `$ids` holds nothing else.
 */
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { bucketed } from '../internal/checkpoint-pointers.js';

/** `state` with its bucketed entries at the top level; throws when one is in the wrong bucket. */
export function unbucketed(state: JsonObject): JsonObject {
  const { $ids: ids, ...rest } = state;
  if (ids === undefined) return state;
  const entries = new Map<string, JsonValue>();
  for (const level of Object.values(ids as JsonObject)) {
    for (const bucket of Object.values(level as JsonObject)) for (const [key, entry] of Object.entries(bucket as JsonObject)) entries.set(key, entry);
  }
  if (!isJsonObject(ids) || !isDeepStrictEqual(bucketed(entries), ids)) throw new Error(`entries outside their buckets: ${JSON.stringify(ids)}`);
  return { ...rest, ...Object.fromEntries(entries) };
}
