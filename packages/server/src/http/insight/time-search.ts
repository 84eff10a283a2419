/**
 * Search through time (git's pickaxe; contract `historySearchRoute`): read the log from a seq
 * on, one transition at a time, keep each searched stream's state by applying its net patches,
 * and report each revision whose patch made a match appear or disappear
 * ({@link changedMatches}). The scan budget bounds a request by transitions read, so a request
 * costs at most `scan` log reads and patch applications, whatever the history's length, and the
 * work budget ({@link WorkBudget}) bounds it by wall-clock time: the page ends at whichever comes
 * first, after a whole transition, so following `next` reads every transition once and finds the
 * same hits as one unbounded request. The page asks again from `next` until it has hits or
 * `next` is null.
 *
 * A stream's state is loaded once per request, at the revision before the first of its
 * transitions read (a checkpoint and at most K−1 patches), then carried forward. A transition
 * at or below a stream's origin is skipped for that stream: the state before it is not retained.
 */
import { applyPatch } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { SearchHit, SearchMatch } from '@stateflow/http-contract';
import type { Store, StreamHead, StreamId, Transition } from '@stateflow/store';
import type { StreamVisibility } from '../stream-visibility.js';
import type { WorkBudget } from '@stateflow/store';
import { shownValue } from '../history/state-node.js';
import { changedMatches } from './changed-matches.js';
import type { Matcher } from './search-matcher.js';
import { transitionRef } from './transition-ref.js';

/** Matches listed per hit and side; the rest are counted in `more`. */
export const MATCHES_PER_HIT = 20;

/** One request of a search. */
export interface SearchRequest {
  matcher: Matcher;
  /** One stream, or every visible one. */
  stream?: StreamId;
  /** Read transitions with seq > after. */
  after: number;
  limit: number;
  scan: number;
}

/** One page of a search (contract `SearchPage`). */
export interface SearchResult {
  hits: SearchHit[];
  scanned: number;
  next: number | null;
  lastSeq: number;
}

/** The state a stream had before the transition being read, and its head (for the origin). */
interface Held {
  head: StreamHead;
  rev: number;
  state: JsonObject;
}

/** Run one page of a search within `budget`. `visibility` decides which streams are searched when no stream is given. */
export async function searchThroughTime(store: Store, visibility: StreamVisibility, request: SearchRequest, budget: WorkBudget): Promise<SearchResult> {
  const lastSeq = store.lastSeq();
  const out: SearchResult = { hits: [], scanned: 0, next: null, lastSeq };
  const held = new Map<StreamId, Held | null>();
  const range = { from: request.after + 1, to: lastSeq, ...(request.stream === undefined ? {} : { stream: request.stream }) };
  if (range.from > lastSeq) return out;
  let lastRead = request.after;
  let ended = true;
  for await (const transition of store.transitions(range)) {
    lastRead = transition.seq;
    out.scanned++;
    for (const change of transition.changes) {
      if (request.stream !== undefined && change.stream !== request.stream) continue;
      const hit = await searchChange(store, visibility, held, request.matcher, transition, change);
      if (hit !== null) out.hits.push(hit);
    }
    if (out.hits.length >= request.limit || out.scanned >= request.scan || budget.spent()) {
      ended = false;
      break;
    }
    await budget.pace();
  }
  out.next = ended || lastRead >= lastSeq ? null : lastRead;
  return out;
}

async function searchChange(
  store: Store,
  visibility: StreamVisibility,
  held: Map<StreamId, Held | null>,
  matcher: Matcher,
  transition: Transition,
  change: Transition['changes'][number],
): Promise<SearchHit | null> {
  const current = await stateBefore(store, visibility, held, change.stream, change.rev);
  if (current === null) return null;
  const prior = current.state;
  const after = applyPatch(prior, change.patch);
  current.rev = change.rev;
  current.state = after;
  const { appeared, disappeared } = changedMatches(matcher, change.patch, prior, after);
  if (appeared.size === 0 && disappeared.size === 0) return null;
  const listed = (matches: Map<string, JsonValue>): SearchMatch[] => [...matches].slice(0, MATCHES_PER_HIT).map(([pointer, value]) => ({ pointer, value: shownValue(value) }));
  const more = Math.max(0, appeared.size - MATCHES_PER_HIT) + Math.max(0, disappeared.size - MATCHES_PER_HIT);
  return { ...transitionRef(transition, change.stream, change.rev), appeared: listed(appeared), disappeared: listed(disappeared), ...(more > 0 ? { more } : {}) };
}

/**
 * The state `stream` had at `rev − 1`, carried from the transitions read before or loaded once;
 * `null` when the stream is not searched (not visible) or that revision is not retained.
 */
async function stateBefore(store: Store, visibility: StreamVisibility, held: Map<StreamId, Held | null>, stream: StreamId, rev: number): Promise<Held | null> {
  let current = held.get(stream);
  if (current === undefined) {
    current = (visibility.all || (await visibility.canSee(stream))) ? { head: await store.head(stream), rev: -1, state: {} } : null;
    held.set(stream, current);
  }
  if (current === null) return null;
  if (current.rev !== rev - 1) {
    if (rev - 1 < current.head.origin) return null;
    current.state = rev === 1 ? {} : await store.stateAt(stream, rev - 1);
    current.rev = rev - 1;
  }
  return current;
}
