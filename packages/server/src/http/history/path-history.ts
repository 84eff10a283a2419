/**
 * Path history ("blame"; ui README "Views", "Path history"): every revision of a stream that changed the value
 * at one path, with the value before and after, found by narrowing each stored net patch to the
 * path (core `narrowPatch`) — no state is rebuilt past the first. Paged twice over: at most
 * `limit` entries and at most `scan` revisions read per request, so a path that rarely changes
 * in a long history costs several bounded requests, never one unbounded one. The work budget
 * ({@link WorkBudget}) ends a page early too, after a whole revision, so following `next` reads
 * each revision once and lists the same changes as one unbounded request.
 */
import { applyNarrowedPatch, isJsonObject, narrowPatch } from '@stateflow/core';
import type { Store, StreamHead, Transition } from '@stateflow/store';
import type { NodeStep } from './read-paths.js';
import type { PathHistoryPage } from '@stateflow/http-contract';
import { shownValue, valueAt } from './state-node.js';
import { revisionIn } from './stream-position.js';
import { metaDate } from '../insight/transition-ref.js';
import type { WorkBudget } from '@stateflow/store';


/**
 * The changes of the value at `steps` in revisions `after + 1 …` of a stream, oldest first.
 * @param page `after` (exclusive revision, ≥ 0), `limit` entries, `scan` revisions at most.
 * @param budget the request's wall-clock budget: the page ends once it is spent.
 */
export async function pathHistory(
  store: Store,
  head: StreamHead,
  pointer: string,
  steps: readonly NodeStep[],
  page: { after: number; limit: number; scan: number },
  budget: WorkBudget,
): Promise<PathHistoryPage> {
  const firstRev = head.origin + 1;
  const startRev = Math.max(page.after + 1, firstRev);
  const out: PathHistoryPage = { stream: head.stream, pointer, changes: [], next: null, firstRev };
  if (startRev > head.rev) return out;
  let current = valueAt(await store.stateAt(head.stream, startRev - 1), steps);
  let lastRead = startRev - 1;
  let scanned = 0;
  const from = await store.revisionSeq(head.stream, startRev);
  for await (const transition of store.transitions({ stream: head.stream, from, to: head.seq })) {
    const rev = revisionIn(transition, head.stream);
    const patch = transition.changes.find((c) => c.stream === head.stream)?.patch ?? {};
    const narrowed = narrowPatch(patch, steps, current);
    lastRead = rev;
    scanned++;
    if (!(isJsonObject(narrowed) && Object.keys(narrowed).length === 0)) {
      const next = applyNarrowedPatch(current, narrowed);
      out.changes.push({
        rev,
        seq: transition.seq,
        time: transition.time,
        ...dateOf(transition),
        change: current === undefined ? 'added' : next === undefined ? 'removed' : 'changed',
        before: shownValue(current),
        after: shownValue(next),
      });
      current = next;
    }
    if (out.changes.length >= page.limit || scanned >= page.scan || budget.spent()) break;
    await budget.pace();
  }
  out.next = lastRead >= head.rev ? null : lastRead;
  return out;
}

/** `{ date }` when the transition's meta has a date, else nothing. */
function dateOf(transition: Transition): { date?: string } {
  const date = metaDate(transition.meta);
  return date === undefined ? {} : { date };
}
