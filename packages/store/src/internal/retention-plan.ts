/**
 * Planning a retention run (README "Retention"): for every stream a policy governs, the origin
 * its policy moves it to, with the revisions and bytes that removes. One pass over the retained
 * log (from the oldest revision any governed stream still keeps) gathers each revision's seq,
 * time and net-patch bytes from the transitions' outlines (no patch decoded); nothing is written.
 */
import { governingFamily } from '../stream-family.js';
import { listTags } from '../tags.js';
import type { Tag } from '../tags.js';
import type { Store, StreamHead, StreamId, TransitionOutline } from '../types.js';
import { patchBytes } from './log-outline.js';
import type { FamilyPolicy } from './retention-declarations.js';
import { workBudget } from '../work-budget.js';
import type { WorkBudget } from '../work-budget.js';

/**
 * Work of a retention run between two yields to the event loop, in ms: 0, a yield after every
 * unit (a transition read, a stream applied). A publish needs a few event-loop turns, each of
 * which waits for the run's work in progress; a unit is far less than a publish's time, a
 * millisecond's worth was not (README "Retention": the store stays writable during a run).
 */
export const RUN_YIELD_EVERY_MS = 0;

/** The yield points of one retention run. */
export const runPace = (): WorkBudget => workBudget(Number.POSITIVE_INFINITY, RUN_YIELD_EVERY_MS);

/** What the log says of one retained revision. */
export interface RevisionFacts {
  rev: number;
  seq: number;
  /** Acceptance time, ms since the epoch. */
  time: number;
  /** UTF-8 bytes of its net patch as JSON. */
  bytes: number;
}

/** The plan of one governed stream. */
export interface StreamPlan {
  stream: StreamId;
  /** The pattern of the policy that governs it. */
  family: string;
  head: StreamHead;
  /** The origin after the run: the oldest revision still readable (`head.rev + 1` for an expired stream). */
  origin: number;
  /** Whether the stream is idle past its policy's `idleMs`: its state is cleared, then compacted. */
  expired: boolean;
  /** The stream's retained revisions above its origin, ascending. */
  facts: RevisionFacts[];
}

/** Plan every stream `policies` govern, as of `now` (ms since the epoch). */
export async function planRetention(store: Store, policies: FamilyPolicy[], now: number): Promise<StreamPlan[]> {
  const governed = new Map<StreamId, { head: StreamHead; policy: FamilyPolicy }>();
  for (const head of await store.streams()) {
    const policy = governingFamily(policies, head.stream);
    if (policy !== undefined && head.rev > 0) governed.set(head.stream, { head, policy });
  }
  const facts = await revisionFacts(store, governed);
  const tags = governed.size === 0 ? [] : await listTags(store);
  const plans: StreamPlan[] = [];
  const pace = runPace();
  for (const [stream, { head, policy }] of governed) {
    await pace.pace();
    const own = facts.get(stream) ?? [];
    const idle = isIdle(policy, head, own, now);
    // An idle stream whose state is already empty needs no transition to clear it.
    const expired = idle && Object.keys(await store.state(stream)).length > 0;
    const target = expired ? head.rev + 1 : idle ? head.rev : targetOrigin(policy, head, own, now);
    const origin = target > head.origin ? await keepingTags(store, tags, head, own, target) : head.origin;
    plans.push({ stream, family: policy.family.pattern, head, origin, expired: expired && origin > head.origin, facts: own });
  }
  return plans.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
}

/** The net-patch bytes of the revisions of `plan` at or below `origin` (what moving the origin there removes). */
export function bytesBelow(plan: StreamPlan, origin: number): number {
  let bytes = 0;
  for (const fact of plan.facts) if (fact.rev <= origin) bytes += fact.bytes;
  return bytes;
}

async function revisionFacts(store: Store, governed: Map<StreamId, { head: StreamHead }>): Promise<Map<StreamId, RevisionFacts[]>> {
  const facts = new Map<StreamId, RevisionFacts[]>();
  const pace = runPace();
  let from = Infinity;
  let to = 0;
  for (const [stream, { head }] of governed) {
    if (head.rev > head.origin) from = Math.min(from, await store.revisionSeq(stream, head.origin + 1));
    to = Math.max(to, head.seq);
  }
  if (from === Infinity) return facts;
  for await (const t of outlinesOf(store, from, to)) {
    // A run of records already read resolves without the event loop: yield to writers.
    await pace.pace();
    for (const change of t.changes) {
      const head = governed.get(change.stream)?.head;
      if (head === undefined || change.rev <= head.origin || change.rev > head.rev) continue;
      const list = facts.get(change.stream) ?? [];
      list.push({ rev: change.rev, seq: t.seq, time: Date.parse(t.time), bytes: change.bytes });
      facts.set(change.stream, list);
    }
  }
  return facts;
}

/**
 * The outlines of the retained transitions `from..to` of `store`: its own
 * ({@link Store.transitionOutlines}), or made of its transitions when it has none (a remote store).
 * @throws as {@link Store.transitions}
 */
export async function* outlinesOf(store: Store, from: number, to: number): AsyncIterable<TransitionOutline> {
  if (store.transitionOutlines !== undefined) {
    yield* store.transitionOutlines({ from, to });
    return;
  }
  for await (const t of store.transitions({ from, to })) yield { seq: t.seq, time: t.time, changes: t.changes.map(({ stream, rev, patch }) => ({ stream, rev, bytes: patchBytes(patch) })) };
}

/** The origin each limit of the policy asks for; the strictest (highest) wins, never below the head's origin. */
function targetOrigin({ policy }: FamilyPolicy, head: StreamHead, facts: RevisionFacts[], now: number): number {
  let origin = head.origin;
  if (policy.maxRevisions !== undefined) origin = Math.max(origin, head.rev - policy.maxRevisions + 1);
  if (policy.maxAgeMs !== undefined) {
    // The state as of the cutoff stays readable: the last revision older than it.
    const cutoff = now - policy.maxAgeMs;
    for (const fact of facts) if (fact.time < cutoff) origin = Math.max(origin, fact.rev);
  }
  if (policy.maxBytes !== undefined) {
    let bytes = 0;
    for (let i = facts.length - 1; i >= 0; i--) {
      const fact = facts[i] as RevisionFacts;
      bytes += fact.bytes;
      if (bytes > policy.maxBytes) {
        origin = Math.max(origin, fact.rev);
        break;
      }
    }
  }
  return origin;
}

/**
 * Whether the stream has had no revision for longer than `idleMs`. A stream compacted to its
 * head earlier has no retained head transition, so no known time: it is never idle.
 */
function isIdle({ policy }: FamilyPolicy, head: StreamHead, facts: RevisionFacts[], now: number): boolean {
  if (policy.idleMs === undefined) return false;
  const last = facts[facts.length - 1];
  return last !== undefined && last.rev === head.rev && last.time < now - policy.idleMs;
}

/** `origin`, lowered to the stream's revision at any tag it would drop (compaction keeps tagged revisions). */
async function keepingTags(store: Store, tags: Tag[], head: StreamHead, facts: RevisionFacts[], origin: number): Promise<number> {
  let floor = origin;
  for (const tag of tags) {
    let rev: number;
    if (tag.stream === head.stream) rev = tag.rev as number;
    else if (tag.seq >= head.seq) rev = head.rev;
    else rev = facts.filter((f) => f.seq <= tag.seq).at(-1)?.rev ?? (head.origin >= 1 && (await store.revisionSeq(head.stream, head.origin)) <= tag.seq ? head.origin : 0);
    if (rev >= 1 && rev >= head.origin && rev < floor) floor = rev;
  }
  return floor;
}
