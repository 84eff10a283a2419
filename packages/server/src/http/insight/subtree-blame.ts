/**
 * Blame of a subtree (contract `historyBlameRoute`): for each child of the value at a pointer at
 * revision R, the last transition at or below R that changed it (or anything below it). The
 * stream's net patches from revision S = max(origin, R − scan) up to R are narrowed to the value
 * (core `narrowPatch`) and each one names the children it changed: the keys of a narrowed object
 * patch, the items of a `"[N]"` patch, the items of a replaced array that differ from the old
 * ones, every child of a value created whole. The last revision to name a child is its blame; a
 * child none names was last changed at or before S (`atOrBefore`). The cost is R − S log reads
 * and narrowings, bounded by the scan budget.
 *
 * The window is read in chunks, newest first, each chunk oldest first from the state at its
 * start; a child's blame is the one of the newest chunk that names it. Between chunks the work
 * budget ({@link WorkBudget}) may end the page: it then answers `next`, the lowest revision read,
 * and a request with `until = next` reads on below it. A caller that keeps, per child, the first
 * page's change that is not null (else the last page's `atOrBefore`) gets the answer of one
 * unbounded request. Each chunk is sized from the time the ones before took, to end near the budget.
 */
import { applyNarrowedPatch, childPointer, isJsonObject, jsonEqual, narrowPatch } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { BlameEntry, BlamePage } from '@stateflow/http-contract';
import type { Store, StreamHead } from '@stateflow/store';
import { resolvePointer, valueAt } from '../history/state-node.js';
import type { NodeStep } from '../history/read-paths.js';
import { revisionIn } from '../history/stream-position.js';
import { stateAtRev } from '../history/stream-reads.js';
import type { WorkBudget } from '@stateflow/store';
import { transitionRef } from './transition-ref.js';
import type { TransitionRef } from './transition-ref.js';

/** One request of a blame. */
export interface BlameRequest {
  rev: number;
  pointer: string;
  offset: number;
  limit: number;
  scan: number;
  /** Read revisions at or below this one only (a previous page's `next`); default `rev`. */
  until?: number;
}

/** A child of an object (`k:` + key) or of an array (`i:` + index): the two never collide. */
type ChildId = string;

const INDEX_KEY = /^\[(0|[1-9][0-9]*)\]$/;

/** Revisions per chunk: the first one, and the bounds of the later ones (sized from the time taken). */
const CHUNK = { first: 16, min: 16, max: 4096 } as const;

/**
 * The blame of one level of `head.stream` at `request.rev`, within `budget`.
 * @throws REVISION_NOT_FOUND, HISTORY_NOT_RETAINED (the revision), PATH_NOT_FOUND (the pointer at it)
 */
export async function subtreeBlame(store: Store, head: StreamHead, request: BlameRequest, budget: WorkBudget): Promise<BlamePage> {
  const { rev, pointer } = request;
  const { steps, value } = resolvePointer(await stateAtRev(store, head, rev), pointer);
  const bottom = Math.max(head.origin, rev - request.scan);
  const top = Math.max(bottom, Math.min(rev, request.until ?? rev));
  const { last, low } = await windowChanges(store, head, steps, { bottom, top }, budget);
  const children = childIds(value);
  const entries = children.slice(request.offset, request.offset + request.limit).map(({ id, label, key }): BlameEntry => {
    const change = last.get(id);
    return { label, pointer: childPointer(pointer, key), change: change ?? null, ...(change === undefined ? { atOrBefore: low } : {}) };
  });
  const page = { stream: head.stream, rev, pointer, entries, offset: request.offset, total: children.length };
  return { ...page, scanned: Math.max(0, top - low), from: low + 1, next: low > bottom ? low : null };
}

/**
 * The last change of each child in revisions `bottom + 1 … top`, chunk by chunk from the top
 * down until the budget is spent (at least one chunk): `low`, the revision the reading stopped
 * above (`bottom` when it read the whole window).
 */
async function windowChanges(
  store: Store,
  head: StreamHead,
  steps: readonly NodeStep[],
  window: { bottom: number; top: number },
  budget: WorkBudget,
): Promise<{ last: Map<ChildId, TransitionRef>; low: number }> {
  const last = new Map<ChildId, TransitionRef>();
  const started = performance.now();
  let low = window.top;
  let size: number = CHUNK.first;
  while (low > window.bottom) {
    const from = Math.max(window.bottom, low - size);
    for (const [id, ref] of await lastChanges(store, head, steps, from, low, budget)) if (!last.has(id)) last.set(id, ref);
    low = from;
    if (budget.spent()) break;
    const perRev = (performance.now() - started) / (window.top - low);
    size = Math.round(Math.min(CHUNK.max, Math.max(CHUNK.min, (budget.ms - (performance.now() - started)) / Math.max(perRev, 1e-3))));
  }
  return { last, low };
}

/** The last transition of revisions `from + 1 … to` that changed each child of the value at `steps`. */
async function lastChanges(store: Store, head: StreamHead, steps: readonly NodeStep[], from: number, to: number, budget: WorkBudget): Promise<Map<ChildId, TransitionRef>> {
  const last = new Map<ChildId, TransitionRef>();
  if (from >= to) return last;
  let current = valueAt(await stateAtRev(store, head, from), steps);
  const range = { stream: head.stream, from: await store.revisionSeq(head.stream, from + 1), to: await store.revisionSeq(head.stream, to) };
  for await (const transition of store.transitions(range)) {
    await budget.pace();
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
