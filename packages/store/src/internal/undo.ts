/**
 * Undo by writer (README "Undo"): this module owns turning "remove the effects of writer A's
 * transitions since seq s" into one transition. It is the merge machinery `store.merge` uses —
 * core's `threeWayMerge`, its conflicts by RFC 6901 path and its resolutions — applied as a
 * revert is in git: each of A's changes of a stream, newest first, is taken back by a three-way
 * merge of the state so far (ours, starting from the head) with the state just before that
 * change (theirs) over the state just after it (base). So at a path only A changed, ours equals
 * base and theirs (the value without A) is taken; at a path only others changed, base equals
 * theirs and ours is kept exactly (the merge shares ours' subtrees); at a path another writer
 * changed after A did, the three differ: a conflict, settled by `resolve`/`prefer` as a merge's
 * are. Read and committed alone under the write lock and in one write session, so the states
 * merged are the ones the transition's basis names.
 */
import { StateflowError, diff, isJsonObject, matchesWriter, patchSeries, threeWayMerge } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { DECLARATION_STREAMS, isReservedStream } from '../declarations.js';
import type { StreamId, UndoConflict, UndoInput, UndoPlan, UndoResult } from '../types.js';
import { currentOf } from './current-state.js';
import { logRecord, transitionsIn } from './log-reads.js';
import { commit, enforceExpected, storedWithId } from './publication.js';
import { stateAtUnlocked } from './state-at.js';
import { headOf } from './store-context.js';
import type { StoreContext } from './store-context.js';
import { tagsOf } from './tag-declarations.js';
import { jsonObjectCopy, stateProblem } from './validate.js';
import { withWriteSession } from './write-session.js';

/** One stream's changes after `since`: revision, net patch, and whether the undone writer made it. */
interface Change {
  seq: number;
  rev: number;
  patch: JsonObject;
  undone: boolean;
}

/**
 * Undo `input.writer`'s transitions (`Store.undo` once its input is checked).
 * @throws UNDO_CONFLICT, TAG_NOT_FOUND, TRANSITION_NOT_FOUND, HISTORY_NOT_RETAINED, CONFLICT,
 *   INPUT_INVALID (resolutions), PATCH_INVALID (invalid-state), STORE_CORRUPT, STORE_IO
 */
export function undoWriter(ctx: StoreContext, input: UndoInput): Promise<UndoResult> {
  return ctx.lock.write(() => withWriteSession(ctx, async (session) => {
    if (input.id !== undefined) {
      const accepted = await storedWithId(ctx, input.id, input.principal);
      if (accepted !== undefined) return { status: 'duplicate', transition: accepted };
    }
    enforceExpected(input.expected ?? {}, (s) => headOf(ctx, s));
    const plan = await planUndo(ctx, input);
    if (input.dryRun === true) return { ...plan, status: 'preview', transition: null };
    const open = plan.conflicts.filter((c) => c.resolution === undefined).length;
    if (open > 0) throw undoConflict(plan, open);
    const changes = Object.fromEntries(Object.entries(plan.patches).filter(([, patch]) => Object.keys(patch).length > 0));
    if (Object.keys(changes).length === 0) return { ...plan, status: 'noop', transition: null };
    const expected = Object.fromEntries(Object.keys(changes).map((s) => [s, plan.heads[s] as number]));
    const meta = jsonObjectCopy({ ...input.meta, undo: { writer: { ...plan.writer }, since: plan.since, through: plan.through, seqs: plan.undone } }, 'meta');
    const result = await commit(ctx, { changes, expected, meta, ...(input.id === undefined ? {} : { id: input.id }), ...(input.principal === undefined ? {} : { principal: input.principal }) }, session);
    if (result.status !== 'accepted') throw new Error(`unreachable: an undo with a non-empty patch staged as ${result.status}`);
    return { ...plan, status: 'accepted', transition: result.transition };
  }));
}

/** The undo's plan: the transitions it undoes, and per stream the merge's patch and conflicts. */
async function planUndo(ctx: StoreContext, input: UndoInput): Promise<UndoPlan> {
  const since = await resolveSince(ctx, input.since);
  const through = ctx.lastSeq;
  const { byStream, undone } = await collectChanges(ctx, input, since, through);
  const plan: UndoPlan = { writer: input.writer, since, through, undone, heads: {}, patches: {}, conflicts: [] };
  for (const stream of Object.keys(input.resolve ?? {})) {
    if (!byStream.has(stream)) {
      throw new StateflowError('INPUT_INVALID', `resolve names stream ${stream}, which this undo does not change (its streams: ${[...byStream.keys()].join(', ') || 'none'}); preview the undo again`, { field: 'resolve', reason: 'not-a-conflict' });
    }
  }
  for (const [stream, changes] of byStream) {
    const { patch, conflicts, rev } = await undoStream(ctx, stream, changes, input);
    plan.heads[stream] = rev;
    plan.patches[stream] = patch;
    plan.conflicts.push(...conflicts);
  }
  return plan;
}

/**
 * Every change after `since` (through `through`) of each stream in scope, from the undone
 * writer's first change of it on, and the seqs of the transitions undone.
 * @throws HISTORY_NOT_RETAINED when compaction pruned a transition in the range
 */
async function collectChanges(ctx: StoreContext, input: UndoInput, since: number, through: number): Promise<{ byStream: Map<StreamId, Change[]>; undone: number[] }> {
  const inScope = (stream: StreamId): boolean => !isReservedStream(stream) && (input.streams === undefined || input.streams.includes(stream));
  const byStream = new Map<StreamId, Change[]>();
  const undone: number[] = [];
  let expected = since + 1;
  for await (const t of transitionsIn(ctx, since + 1, through)) {
    // transitionsIn skips pruned stubs: a gap is a transition whose writer can no longer be read.
    if (t.seq !== expected) throw await prunedInRange(ctx, expected);
    expected = t.seq + 1;
    const matching = matchesWriter(t.meta, input.writer);
    let counted = false;
    for (const c of t.changes) {
      if (!inScope(c.stream)) continue;
      let list = byStream.get(c.stream);
      if (list === undefined) {
        if (!matching) continue;
        byStream.set(c.stream, (list = []));
      }
      list.push({ seq: t.seq, rev: c.rev, patch: c.patch, undone: matching });
      if (matching && !counted) {
        undone.push(t.seq);
        counted = true;
      }
    }
  }
  if (expected <= through) throw await prunedInRange(ctx, expected);
  return { byStream, undone };
}

/**
 * One stream's undo: the undone changes reverted newest first, each a three-way merge of the
 * state so far ("ours", from the head) with the state before that change ("theirs") over the
 * state right after it ("base"), restricted to the paths its patch wrote (core `threeWayMerge`
 * `only`: elsewhere base and theirs are equal, so ours is kept as it is). A path that conflicts at
 * several changes is listed once: `ours` the head's value, `base` the newest undone value,
 * `theirs` the value before the oldest of them (what `'theirs'` leaves there). Every path another
 * writer wrote after the change is `contested`: a difference there is a conflict even where the
 * head holds exactly what the undone change left (another writer may have written it back).
 */
async function undoStream(ctx: StoreContext, stream: StreamId, changes: Change[], input: UndoInput): Promise<{ patch: JsonObject; conflicts: UndoConflict[]; rev: number }> {
  const steps = await undoneSteps(ctx, stream, changes);
  const ours = await currentOf(ctx, stream);
  const resolve = input.resolve?.[stream];
  const conflicts = new Map<string, UndoConflict>();
  // What the other writers wrote after the change being reverted (walking back from the head).
  const contested: JsonObject = {};
  let state = ours;
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i] as Change;
    const step = steps.get(i);
    if (step === undefined) {
      addPaths(contested, change.patch);
      continue;
    }
    const merged = threeWayMerge(step.after, state, step.before, {
      only: change.patch,
      contested,
      unusedResolutions: 'ignore',
      ...(resolve === undefined ? {} : { resolve }),
      ...(input.prefer === undefined ? {} : { prefer: input.prefer }),
    });
    state = merged.merged;
    for (const c of merged.conflicts) {
      const seen = conflicts.get(c.path);
      conflicts.set(c.path, seen === undefined ? { stream, ...c } : { ...seen, theirs: c.theirs });
    }
  }
  const unused = Object.keys(resolve ?? {}).filter((path) => !conflicts.has(path));
  if (unused.length > 0) {
    throw new StateflowError('INPUT_INVALID', `resolve names ${unused.map((p) => `${stream} ${JSON.stringify(p)}`).join(', ')}, which ${unused.length === 1 ? 'is not a conflict' : 'are not conflicts'} of this undo; preview it again and resolve the paths it lists`, { field: 'resolve', reason: 'not-a-conflict' });
  }
  const problem = stateProblem(stream, state);
  if (problem !== null) {
    throw new StateflowError('PATCH_INVALID', `Undoing on ${stream} would leave an invalid state: ${problem}; resolve that path with another value`, { reason: 'invalid-state', at: '' });
  }
  return { patch: diff(ours, state), conflicts: [...conflicts.values()], rev: headOf(ctx, stream).rev };
}

/** One undone change: the stream's state before and after it. */
interface UndoneStep {
  before: JsonObject;
  after: JsonObject;
}

/**
 * The state before and after each undone change of `stream` (by its index in `changes`),
 * replayed in one patch series from the revision before the first of them (the stored net
 * patches, applied as stored).
 */
async function undoneSteps(ctx: StoreContext, stream: StreamId, changes: Change[]): Promise<Map<number, UndoneStep>> {
  const series = patchSeries(await stateAtUnlocked(ctx, stream, (changes[0] as Change).rev - 1), { frozenPatches: true });
  const steps = new Map<number, UndoneStep>();
  changes.forEach((c, i) => {
    if (!c.undone) {
      series.apply(c.patch);
      return;
    }
    const before = series.state();
    series.apply(c.patch);
    steps.set(i, { before, after: series.state() });
  });
  return steps;
}

/** Add the paths `patch` writes to the tree `into` (`true` at each path written whole). */
function addPaths(into: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    const seen = into[key];
    if (seen === true) continue;
    if (!isJsonObject(value) || Object.keys(value).some(isIndexKey)) {
      defineMember(into, key, true);
      continue;
    }
    let below = isJsonObject(seen) ? seen : undefined;
    if (below === undefined) defineMember(into, key, (below = {}));
    addPaths(below, value);
  }
}

/**
 * The seq after which to undo.
 * @throws TRANSITION_NOT_FOUND for a seq beyond the log; TAG_NOT_FOUND
 */
async function resolveSince(ctx: StoreContext, since: UndoInput['since']): Promise<number> {
  if (typeof since === 'number' || 'seq' in since) {
    const seq = typeof since === 'number' ? since : since.seq;
    if (seq > ctx.lastSeq) throw new StateflowError('TRANSITION_NOT_FOUND', `There is no transition ${seq} to undo from (the last is ${ctx.lastSeq})`, { seq, lastSeq: ctx.lastSeq });
    return seq;
  }
  if ('tag' in since) {
    const tag = tagsOf(await currentOf(ctx, DECLARATION_STREAMS.tags)).get(since.tag);
    if (tag === undefined) throw new StateflowError('TAG_NOT_FOUND', `There is no tag ${since.tag}; list the tags with "stateflow tag list"`, { tag: since.tag });
    return tag.seq;
  }
  return seqBefore(ctx, Date.parse(since.time));
}

/**
 * The seq before the first transition at or after `time` (ms): a binary search over the log,
 * whose times rise with seq (a pruned stub, holding no time, counts as earlier).
 */
async function seqBefore(ctx: StoreContext, time: number): Promise<number> {
  let lo = 1;
  let hi = ctx.lastSeq + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const record = await logRecord(ctx, mid);
    if (record.pruned || Date.parse(record.time) < time) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

async function prunedInRange(ctx: StoreContext, seq: number): Promise<StateflowError> {
  const record = await logRecord(ctx, seq);
  const first = record.changes[0];
  const stream = first?.stream ?? '';
  return new StateflowError(
    'HISTORY_NOT_RETAINED',
    `Transition ${seq} was removed by compaction, so the undo cannot tell who wrote it (stream ${stream} starts at revision ${headOf(ctx, stream).origin}); undo from a later seq`,
    { stream, rev: first?.rev ?? 0, origin: headOf(ctx, stream).origin },
  );
}

/** An indexed member (`"[N]"`): the tree marks its whole array. */
const isIndexKey = (key: string): boolean => /^\[(0|[1-9][0-9]*)\]$/.test(key);

/** Set an own data member (a key such as `__proto__` stays data). */
function defineMember(object: JsonObject, key: string, value: JsonObject | true): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function undoConflict(plan: UndoPlan, open: number): StateflowError<'UNDO_CONFLICT'> {
  const paths = plan.conflicts.filter((c) => c.resolution === undefined).map((c) => `${c.stream} ${c.path}`);
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, … (${paths.length - 5} more)` : '');
  return new StateflowError(
    'UNDO_CONFLICT',
    `Undoing ${plan.undone.length} transition${plan.undone.length === 1 ? '' : 's'} (seq ${plan.since + 1}…${plan.through}) leaves ${open} conflict${open === 1 ? '' : 's'} open where other writers changed what they wrote (${shown}); nothing was published. ` +
      'Resolve each stream and path (ours keeps the later writes, theirs takes the state without the undone ones, or a value) or prefer a side, and undo again',
    { since: plan.since, through: plan.through, undone: plan.undone.length, conflicts: plan.conflicts },
  );
}
