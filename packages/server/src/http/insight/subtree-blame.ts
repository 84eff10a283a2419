/**
 * Blame of a subtree (contract `historyBlameRoute`): for each child of the value at a pointer at
 * revision R, the last transition at or below R that changed it (or anything below it). The
 * stream's net patches from revision S = max(origin, R − scan) up to R are narrowed to the value
 * (core `narrowPatch`), oldest first, and each one names the children it changed: the keys of a
 * narrowed object patch, the items of a `"[N]"` patch, the items of a replaced array that differ
 * from the old ones, every child of a value created whole. The last revision to name a child is
 * its blame; a child none names was last changed at or before S (`atOrBefore`). The cost is R − S
 * log reads and narrowings, bounded by the scan budget.
 */
import { applyNarrowedPatch, childPointer, isJsonObject, jsonEqual, narrowPatch } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { BlameEntry, BlamePage } from '@stateflow/http-contract';
import type { Store, StreamHead } from '@stateflow/store';
import { resolvePointer, valueAt } from '../history/state-node.js';
import type { NodeStep } from '../history/read-paths.js';
import { revisionIn } from '../history/stream-position.js';
import { stateAtRev } from '../history/stream-reads.js';
import { transitionRef } from './transition-ref.js';
import type { TransitionRef } from './transition-ref.js';

/** One request of a blame. */
export interface BlameRequest {
  rev: number;
  pointer: string;
  offset: number;
  limit: number;
  scan: number;
}

/** A child of an object (`k:` + key) or of an array (`i:` + index): the two never collide. */
type ChildId = string;

const INDEX_KEY = /^\[(0|[1-9][0-9]*)\]$/;

/**
 * The blame of one level of `head.stream` at `request.rev`.
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED (the revision), PATH_NOT_FOUND (the pointer at it)
 */
export async function subtreeBlame(store: Store, head: StreamHead, request: BlameRequest): Promise<BlamePage> {
  const { rev, pointer } = request;
  const { steps, value } = resolvePointer(await stateAtRev(store, head, rev), pointer);
  const from = Math.max(head.origin, rev - request.scan);
  const last = await lastChanges(store, head, steps, from, rev);
  const children = childIds(value);
  const entries = children.slice(request.offset, request.offset + request.limit).map(({ id, label, key }): BlameEntry => {
    const change = last.get(id);
    return { label, pointer: childPointer(pointer, key), change: change ?? null, ...(change === undefined ? { atOrBefore: from } : {}) };
  });
  return { stream: head.stream, rev, pointer, entries, offset: request.offset, total: children.length, scanned: rev - from, from: from + 1 };
}

/** The last transition of revisions `from + 1 … to` that changed each child of the value at `steps`. */
async function lastChanges(store: Store, head: StreamHead, steps: readonly NodeStep[], from: number, to: number): Promise<Map<ChildId, TransitionRef>> {
  const last = new Map<ChildId, TransitionRef>();
  if (from >= to) return last;
  let current = valueAt(await stateAtRev(store, head, from), steps);
  const range = { stream: head.stream, from: await store.revisionSeq(head.stream, from + 1), to: await store.revisionSeq(head.stream, to) };
  for await (const transition of store.transitions(range)) {
    const rev = revisionIn(transition, head.stream);
    const patch = transition.changes.find((c) => c.stream === head.stream)?.patch ?? {};
    const narrowed = narrowPatch(patch, steps, current);
    if (isJsonObject(narrowed) && Object.keys(narrowed).length === 0) continue;
    const changed = changedChildren(narrowed, current);
    if (changed.length > 0) {
      const ref = transitionRef(transition, head.stream, rev);
      for (const id of changed) last.set(id, ref);
    }
    current = applyNarrowedPatch(current, narrowed);
  }
  return last;
}

/** The children a narrowed patch changes in `old` (the value before it). */
function changedChildren(narrowed: JsonValue, old: JsonValue | undefined): ChildId[] {
  if (Array.isArray(narrowed)) {
    const before = Array.isArray(old) ? old : [];
    return narrowed.flatMap((item, i) => (i < before.length && jsonEqual(before[i] as JsonValue, item) ? [] : [`i:${i}`]));
  }
  if (!isJsonObject(narrowed)) return [];
  if (Array.isArray(old)) {
    return Object.keys(narrowed).flatMap((key) => {
      const index = INDEX_KEY.exec(key);
      return index === null ? [] : [`i:${index[1]}`];
    });
  }
  return Object.keys(narrowed).map((key) => `k:${key}`);
}

/** The children of a value, in order: an object's keys, an array's items. */
function childIds(value: JsonValue): Array<{ id: ChildId; label: string; key: string }> {
  if (Array.isArray(value)) return value.map((_, i) => ({ id: `i:${i}`, label: `[${i}]`, key: String(i) }));
  if (isJsonObject(value)) return Object.keys(value).map((key) => ({ id: `k:${key}`, label: key, key }));
  return [];
}
