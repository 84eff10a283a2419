/**
 * Publication (README "Group commit", "One transition writes", "Hash chain"): this module owns
 * turning inputs into transitions and writing them — the publish queue and its group commit,
 * staging each input against memory as the earlier members of its group will leave it
 * (idempotency, expected revisions, patch validation, net patches, state validity, seq and hash
 * chain), and writing a group's transitions with their index, head, checkpoint and id records in
 * one atomic batch, after which memory is updated and watchers are notified.
 */
import { StateflowError, isStateflowError, withMessagePrefix } from '@stateflow/core';
import type { JsonObject, StateTree } from '@stateflow/core';
import type { ExpectedRevision, PublishInput, PublishResult, StreamChange, StreamId, Transition } from '../types.js';
import { NO_DEBT, afterCheckpoint, checkpointDue, withPatch } from './checkpoint-policy.js';
import type { CheckpointDebt } from './checkpoint-policy.js';
import { encodeValue } from './codec.js';
import { transitionHash } from './hash.js';
import { headKey, idRecordKey, logKey, revKey, seqKey } from './keys.js';
import { currentTreeOf } from './current-state.js';
import { logRecord } from './log-reads.js';
import { checkpointRecords } from './paged-checkpoint.js';
import { corrupt, decodeCount, encodeRecord, encodeRevision, encodeTransition } from './records.js';
import type { HeadRecord, PrunedRecord } from './records.js';
import type { StorageOp } from '../storage.js';
import { headOf } from './store-context.js';
import { withGroupCommit } from './write-session.js';
import { observedCommit } from './observe.js';
import type { SessionCommit } from './write-session.js';
import type { Queued, StoreContext } from './store-context.js';
import { checkedInput, stateProblem } from './validate.js';
import { checkDeclarationChange } from './declaration-rules.js';
import { isReservedStream } from '../declarations.js';
import { shapesOfWrite } from './shape-writes.js';
import { workBudget } from '../work-budget.js';

/** The result of a call that changes nothing (nothing is recorded, not even its id). */
export const NOOP: PublishResult = Object.freeze({ status: 'noop', transition: null });

/** One transition ready to be written, with the resulting state (a tree) of each stream it changes. */
export interface Staged {
  transition: Transition;
  states: Map<StreamId, StateTree>;
  sync: boolean;
  /** Whose idempotency id the transition carries (`undefined`: the store's owner). */
  principal?: string;
}

/**
 * Transitions staged for one batch (group commit), and memory as it will be once that batch is
 * written: later members of the group are checked against the earlier ones. Each member's
 * records are encoded when it is staged, so a member that cannot be stored fails alone.
 */
export interface Group {
  staged: Staged[];
  /** The encoded log, index, checkpoint and id records of every staged transition. */
  ops: StorageOp[];
  heads: Map<StreamId, HeadRecord>;
  /** Each changed stream's state as the group leaves it: trees, so a member costs what it changes. */
  states: Map<StreamId, StateTree>;
  debts: Map<StreamId, CheckpointDebt>;
  /** Staged transitions by {@link idSlot} of their id and principal. */
  ids: Map<string, Transition>;
  lastSeq: number;
  lastHash: string;
}

/**
 * Queue checked inputs — one publish, or an all-or-nothing batch of them — for the next group
 * commit; resolves once the batch holding them was written (or rejects with the first input's
 * own error, or the batch's write error).
 */
export function enqueue(ctx: StoreContext, inputs: PublishInput[], budgetMs?: number): Promise<PublishResult[]> {
  return new Promise<PublishResult[]>((resolve, reject) => {
    ctx.queue.push({ inputs, resolve, reject, ...(budgetMs === undefined ? {} : { budgetMs }) });
    // The first publish of a group schedules it; later ones join until it starts.
    if (ctx.queue.length === 1) void ctx.lock.write(() => commitQueued(ctx));
  });
}

/**
 * Commit one publication on its own (fork, revert), in the write session the caller holds
 * (and under the write lock).
 */
export async function commit(ctx: StoreContext, input: PublishInput, session: SessionCommit): Promise<PublishResult> {
  const group = newGroup(ctx);
  const result = await stage(ctx, input, group);
  await writeGroup(ctx, group, session);
  return result;
}

/**
 * Group commit: take every queued publish — also those that arrived while the group waited for
 * the storage's write session, so one commit carries them all — stage each in order against
 * memory as the earlier ones will leave it (each accepted or rejected on its own, exactly as if
 * they ran one after another; a batch is accepted or rejected whole), write all accepted ones in
 * one batch, then settle them. Runs as one write task; the group may be staged more than once
 * ({@link withGroupCommit}), so members are settled only once it is written.
 */
async function commitQueued(ctx: StoreContext): Promise<void> {
  // An earlier group's retry may have taken this group's publishes already.
  if (ctx.queue.length === 0) return;
  const queued: Queued[] = [];
  let outcome: { settled: { item: Queued; results: PublishResult[] }[]; refused: { item: Queued; err: unknown }[] };
  try {
    outcome = await withGroupCommit(ctx, async (session) => {
      queued.push(...ctx.queue);
      ctx.queue = [];
      let group = newGroup(ctx);
      const settled: { item: Queued; results: PublishResult[] }[] = [];
      const refused: { item: Queued; err: unknown }[] = [];
      for (const item of queued) {
        // A batch stages into a copy of the group, kept only when every input of it stages.
        const target = item.inputs.length === 1 ? group : copyGroup(group);
        let results: PublishResult[];
        try {
          results = await stageBatch(ctx, item, target);
        } catch (err) {
          refused.push({ item, err });
          continue;
        }
        group = target;
        settled.push({ item, results });
      }
      await writeGroup(ctx, group, session);
      return { settled, refused };
    });
  } catch (err) {
    // The session could not begin or catch up, or the batch failed: every member fails with
    // that error (those still queued when nothing was staged yet too).
    if (queued.length === 0) {
      queued.push(...ctx.queue);
      ctx.queue = [];
    }
    for (const item of queued) item.reject(err);
    return;
  }
  for (const { item, err } of outcome.refused) item.reject(err);
  for (const { item, results } of outcome.settled) item.resolve(results);
}

/**
 * Stage every input of `item` into `target`, in order. A batch yields to the event loop every
 * `YIELD_EVERY_MS` (src/work-budget.ts) of staging (a memory store's reads never do), so other requests are
 * answered meanwhile; past `item.budgetMs` it is refused whole, before anything is written.
 * @throws the first input's own error (prefixed with its position in a batch); INPUT_INVALID
 *   `{ field: 'inputs', reason: 'over-budget' }` past the budget
 */
async function stageBatch(ctx: StoreContext, item: Queued, target: Group): Promise<PublishResult[]> {
  const results: PublishResult[] = [];
  const budget = workBudget(item.budgetMs ?? Number.POSITIVE_INFINITY);
  for (const [i, input] of item.inputs.entries()) {
    try {
      results.push(await stage(ctx, input, target));
    } catch (err) {
      throw item.inputs.length > 1 && isStateflowError(err) ? withMessagePrefix(err, `Input ${i + 1} of ${item.inputs.length}: `) : err;
    }
    if (budget.spent() && i + 1 < item.inputs.length) {
      throw new StateflowError(
        'INPUT_INVALID',
        `The batch of ${item.inputs.length} inputs took more than its budget of ${item.budgetMs} ms to stage (${i + 1} staged); nothing was written: send fewer or smaller inputs per request.`,
        { field: 'inputs', reason: 'over-budget' },
      );
    }
    if (item.inputs.length > 1) await budget.pace();
  }
  return results;
}

/** An empty group starting at the store's chain tip. */
export function newGroup(ctx: StoreContext): Group {
  return { staged: [], ops: [], heads: new Map(), states: new Map(), debts: new Map(), ids: new Map(), lastSeq: ctx.lastSeq, lastHash: ctx.lastHash };
}

/** A copy of `group` to stage into without changing it. */
function copyGroup(group: Group): Group {
  return {
    staged: [...group.staged],
    ops: [...group.ops],
    heads: new Map(group.heads),
    states: new Map(group.states),
    debts: new Map(group.debts),
    ids: new Map(group.ids),
    lastSeq: group.lastSeq,
    lastHash: group.lastHash,
  };
}

/** A stream's head as the group will leave it. */
export function groupHead(ctx: StoreContext, group: Group, stream: StreamId): HeadRecord {
  return group.heads.get(stream) ?? headOf(ctx, stream);
}

/**
 * Add a staged transition to the group: encode its records (log entry, index entries, a
 * checkpoint when one is due, its id), then let later members see its heads, states, id and
 * hash. Nothing of the group changes when encoding fails.
 * @throws INPUT_INVALID `{ field: 'changes', reason: 'not-storable' }` when a record cannot be encoded
 */
export function addToGroup(ctx: StoreContext, group: Group, staged: Staged): void {
  const { transition, states } = staged;
  const ops: StorageOp[] = [];
  const debts = new Map<StreamId, CheckpointDebt>();
  encoded(() => {
    const key = logKey(transition.seq);
    ops.push({ type: 'put', key, value: encodeTransition(key, transition) });
    for (const { stream, rev, patch } of transition.changes) {
      let debt = withPatch(group.debts.get(stream) ?? ctx.debt.get(stream) ?? NO_DEBT, encodeValue(patch).byteLength, patch);
      if (checkpointDue(rev, ctx.settings.checkpointInterval, debt)) {
        const written = checkpointRecords(stream, rev, transition.seq, states.get(stream) as StateTree, { bytes: debt.checkpointBytes, tailBytes: debt.tailBytes, layout: debt.layout, tail: debt.tail });
        for (const { key, value } of written.puts) ops.push({ type: 'put', key, value });
        debt = afterCheckpoint(rev, written.bytes, written.layout);
      }
      const rk = revKey(stream, rev);
      ops.push({ type: 'put', key: rk, value: encodeRevision(rk, { seq: transition.seq, base: debt.base }) });
      ops.push({ type: 'put', key: seqKey(stream, transition.seq), value: encodeRecord(rev) });
      debts.set(stream, debt);
    }
    if (transition.id !== undefined) ops.push({ type: 'put', key: idRecordKey(transition.id, staged.principal), value: encodeRecord(transition.seq) });
  });
  for (const { stream, rev } of transition.changes) {
    group.heads.set(stream, { rev, seq: transition.seq, origin: headOf(ctx, stream).origin });
    group.states.set(stream, states.get(stream) as StateTree);
    group.debts.set(stream, debts.get(stream) as CheckpointDebt);
  }
  if (transition.id !== undefined) group.ids.set(idSlot(transition.id, staged.principal), transition);
  group.lastSeq = transition.seq;
  group.lastHash = transition.hash;
  group.ops.push(...ops);
  group.staged.push(staged);
}

/** Run `encode`; a value that cannot be encoded is refused alone, typed. */
function encoded(encode: () => void): void {
  try {
    encode();
  } catch (err) {
    throw new StateflowError('INPUT_INVALID', `The transition cannot be encoded for storage (${(err as Error).message}); nothing was written`, { field: 'changes', reason: 'not-storable' }, { cause: err });
  }
}

/**
 * Validate a publication against the group's view of the heads and stage it (nothing is
 * written here). Check order: idempotency id, expected revisions, every patch against the
 * captured basis, net patches, resulting state validity.
 */
async function stage(ctx: StoreContext, input: PublishInput, group: Group): Promise<PublishResult> {
  if (input.id !== undefined) {
    const accepted = group.ids.get(idSlot(input.id, input.principal)) ?? (await storedWithId(ctx, input.id, input.principal));
    if (accepted !== undefined) return { status: 'duplicate', transition: accepted };
  }
  if (input.meta !== undefined && Object.hasOwn(input.meta, 'shape')) {
    throw new StateflowError('INPUT_INVALID', 'meta.shape is written by the store (the shape version of each stream, README "Shapes"); leave it out', { field: 'meta.shape' });
  }
  const streams = Object.keys(input.changes);
  const basis = new Map<StreamId, StateTree>();
  for (const s of streams) basis.set(s, group.states.get(s) ?? (await currentTreeOf(ctx, s)));
  enforceExpected(input.expected ?? {}, (s) => groupHead(ctx, group, s));
  // Each patch is validated, netted and applied by one tree change (the same PATCH_INVALID as
  // validatePatch), all of them before any state is checked: the first invalid patch fails the call.
  const changed = new Map<StreamId, { net: JsonObject; tree: StateTree }>();
  for (const s of streams) changed.set(s, checkedInput(`the patch for stream ${s}`, () => (basis.get(s) as StateTree).change(input.changes[s])));
  const changes: StreamChange[] = [];
  const states = new Map<StreamId, StateTree>();
  for (const s of streams) {
    const { net, tree: after } = changed.get(s) as { net: JsonObject; tree: StateTree };
    if (Object.keys(net).length === 0) continue;
    const problem = stateProblem(s, after);
    if (problem !== null) {
      throw new StateflowError('PATCH_INVALID', `The patch for stream ${s} would leave an invalid state: ${problem}`, { reason: 'invalid-state', at: '' });
    }
    if (isReservedStream(s)) await checkDeclarationChange(s, (basis.get(s) as StateTree).state(), after.state(), { seq: group.lastSeq + 1, headRev: (stream) => groupHead(ctx, group, stream).rev });
    changes.push(Object.freeze({ stream: s, rev: groupHead(ctx, group, s).rev + 1, patch: net }));
    states.set(s, after);
  }
  if (changes.length === 0) return NOOP;
  const shapes = await shapesOfWrite(ctx, group, states, input.meta);
  const body: Omit<Transition, 'hash' | 'prevHash'> = { seq: group.lastSeq + 1, time: ctx.settings.clock().toISOString(), changes: Object.freeze(changes) as StreamChange[] };
  if (input.id !== undefined) body.id = input.id;
  // Already a frozen copy (checkPublishInput): later mutation of the caller's object cannot
  // change what is stored, hashed, or seen by watchers and duplicates.
  if (input.meta !== undefined) body.meta = input.meta;
  // The shape each governed stream was written in (README "Shapes"): the reader's chain starts there.
  if (shapes !== null) body.meta = Object.freeze({ ...input.meta, shape: shapes });
  const transition: Transition = Object.freeze({ ...body, prevHash: group.lastHash, hash: transitionHash(group.lastHash, body) });
  const staged: Staged = { transition, states, sync: (input.durability ?? ctx.settings.durability) === 'fsync' };
  if (input.principal !== undefined) staged.principal = input.principal;
  addToGroup(ctx, group, staged);
  return { status: 'accepted', transition };
}

/** The key of `id` accepted for `principal` in a group's {@link Group.ids} (the storage key's text). */
export function idSlot(id: string, principal: string | undefined): string {
  return principal === undefined ? `I${id}` : `P${principal}\u0000${id}`;
}

/**
 * The stored transition `principal` (`undefined`: the store's owner, whose ids are the unscoped
 * ones of stores before principals) accepted with idempotency id `id` — or its pruned stub: compaction keeps
 * a pruned transition's id, so a retry is a duplicate for as long as the store keeps the stub
 * (always) — or `undefined` when no transition has that id. A duplicate answer hands out what it
 * found as the caller's own transition, so the record the `I` entry points at must carry `id`:
 * an entry pointing at another request's transition (damage, or an edit behind the store's back)
 * fails closed rather than answering with that transition.
 * @throws STORE_CORRUPT `{ key: 'I/<id>' }` (`P/<principal>/<id>`) when the id record does not decode or points at a
 *   transition that does not carry `id`; STORE_CORRUPT `{ key: 'L/<seq>' }` when that transition
 *   does not verify
 */
export async function storedWithId(ctx: StoreContext, id: string, principal: string | undefined): Promise<Transition | PrunedRecord | undefined> {
  const key = idRecordKey(id, principal);
  const bytes = await ctx.storage.get(key);
  if (bytes === undefined) return undefined;
  const seq = decodeCount(key, bytes);
  const record = await logRecord(ctx, seq);
  if (record.id !== id) throw corrupt(key, `points at seq ${seq}, which does not carry this id`);
  return record;
}

/** @throws CONFLICT when a stream's head (as `headOf` gives it) is not the expected revision. */
export function enforceExpected(expected: Record<StreamId, ExpectedRevision>, headOf: (stream: StreamId) => HeadRecord): void {
  for (const [s, e] of Object.entries(expected)) {
    const actual = headOf(s).rev;
    if (e === 'any' || (e === 'none' && actual === 0) || e === actual) continue;
    throw new StateflowError(
      'CONFLICT',
      `Stream ${s} is at revision ${actual}, expected ${e === 'none' ? 'no revision' : `revision ${e}`}; re-read and retry`,
      { stream: s, expected: e, actual },
    );
  }
}

/**
 * Write every staged transition of a group in one atomic batch (synced when any member asked
 * for fsync), with the heads it leaves, then install the group in memory and notify watchers
 * in seq order ({@link installGroup}).
 */
export async function writeGroup(ctx: StoreContext, group: Group, session: SessionCommit): Promise<void> {
  if (group.staged.length === 0) return;
  const ops = group.ops;
  for (const [stream, head] of group.heads) ops.push({ type: 'put', key: headKey(stream), value: encodeRecord(head) });
  const sync = group.staged.some((staged) => staged.sync) && ctx.storage.capabilities.fsync;
  const bytes = ops.reduce((sum, op) => sum + (op.type === 'put' ? op.value.byteLength : 0), 0);
  await observedCommit(ctx.settings.observer, { transitions: group.staged.length, bytes, synced: sync }, () => session(ops, { sync }, () => installGroup(ctx, group)));
}

/**
 * Memory once a group is written: its heads, states, checkpoint debts and chain tip, and its
 * transitions to the watchers — forward only: on shared storage a catch-up may have read the
 * group's own transitions first (and told the watchers), or later ones of other processes.
 */
function installGroup(ctx: StoreContext, group: Group): void {
  const known = ctx.lastSeq;
  for (const [stream, head] of group.heads) {
    if ((ctx.heads.get(stream)?.seq ?? 0) >= head.seq) continue;
    ctx.heads.set(stream, head);
    ctx.current.set(stream, group.states.get(stream) as StateTree);
    ctx.debt.set(stream, group.debts.get(stream) as CheckpointDebt);
  }
  if (group.lastSeq > known) {
    ctx.lastSeq = group.lastSeq;
    ctx.lastHash = group.lastHash;
  }
  for (const { transition } of group.staged) if (transition.seq > known) ctx.hub.publish(transition);
}
