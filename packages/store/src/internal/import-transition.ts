/**
 * Verbatim import (`Store.append`, `Store.appendMany`; README "Decisions": `append`): this module
 * owns verifying exported transitions against the store before they are written unchanged — each
 * one's seq and `prevHash` continue the chain, its time, id and meta are well-formed, each change
 * is the next revision of its stream and a valid patch that changes something and leaves a valid
 * state, and its hash is sha256(prevHash ‖ canonical(body)) — each against the state the ones
 * before it leave, then committing them in one batch, all or nothing.
 */
import { StateflowError, describeInput, isJsonObject, isStateflowError, withMessagePrefix } from '@stateflow/core';
import type { JsonObject, StateTree } from '@stateflow/core';
import type { StreamId, Transition } from '../types.js';
import { transitionHash } from './hash.js';
import { idKey } from './keys.js';
import { idSlot } from './publication.js';
import { currentTreeOf } from './current-state.js';
import { addToGroup, groupHead, newGroup, writeGroup } from './publication.js';
import type { Group, Staged } from './publication.js';
import { withWriteSession } from './write-session.js';
import type { StoreContext } from './store-context.js';
import { checkStream, checkedInput, jsonObjectCopy, stateProblem } from './validate.js';

/**
 * Verify `transitions` in order, each against the state the ones before it leave, and write them
 * unchanged in one batch under the write lock — or, when one fails, none. Each caller's object is
 * read once, into plain copies, before it is verified.
 * @throws INPUT_INVALID (`details.field` names the check), PATCH_INVALID, STREAM_INVALID, with
 *   `Transition N of M: ` before the message when there are several; STORE_CLOSED,
 *   STORE_CORRUPT, STORE_IO
 */
export function appendTransitions(ctx: StoreContext, transitions: Transition[]): Promise<void> {
  return ctx.lock.write(() => withWriteSession(ctx, async (session) => {
    const group = newGroup(ctx);
    for (const [i, transition] of transitions.entries()) {
      try {
        // Read the caller's object once, into plain copies, before verifying it.
        const copy = checkedInput('transition', () =>
          isJsonObject(transition)
            ? { ...transition, changes: Array.isArray(transition.changes) ? transition.changes.map((c) => (isJsonObject(c) ? { ...c } : c)) : transition.changes }
            : transition,
        );
        addToGroup(ctx, group, await verifyImport(ctx, group, copy));
      } catch (err) {
        throw transitions.length > 1 && isStateflowError(err) ? withMessagePrefix(err, `Transition ${i + 1} of ${transitions.length}: `) : err;
      }
    }
    await writeGroup(ctx, group, session);
  }));
}

/** Verify an exported transition for {@link Store.append} against the store as `group` leaves it; stage it unchanged. */
async function verifyImport(ctx: StoreContext, group: Group, t: Transition): Promise<Staged> {
  const bad = (field: string, reason: string): StateflowError =>
    new StateflowError('INPUT_INVALID', `Cannot append transition ${describeInput(isJsonObject(t) ? t.seq : t)}: ${reason}`, { field, reason });
  if (!isJsonObject(t)) throw bad('transition', 'not an object');
  if (t.seq !== group.lastSeq + 1) throw bad('seq', `seq must be ${group.lastSeq + 1} (the store's last seq is ${group.lastSeq})`);
  if (t.prevHash !== group.lastHash) throw bad('prevHash', `prevHash does not match the hash of transition ${group.lastSeq}`);
  if (typeof t.time !== 'string' || Number.isNaN(Date.parse(t.time))) throw bad('time', 'time is not an ISO 8601 timestamp');
  let meta: JsonObject | undefined;
  if (t.meta !== undefined) {
    try {
      meta = jsonObjectCopy(t.meta, 'meta');
    } catch (err) {
      throw bad('meta', `meta is not a JSON object: ${(err as Error).message}`);
    }
  }
  if (t.id !== undefined) {
    if (typeof t.id !== 'string' || t.id.length === 0) throw bad('id', 'id is not a non-empty string');
    if (group.ids.has(idSlot(t.id, undefined)) || (await ctx.storage.get(idKey(t.id))) !== undefined) throw bad('id', `id ${JSON.stringify(t.id)} was already accepted`);
  }
  if (!Array.isArray(t.changes) || t.changes.length === 0) throw bad('changes', 'changes is empty');
  const states = new Map<StreamId, StateTree>();
  for (const c of t.changes) {
    if (!isJsonObject(c)) throw bad('changes', 'a change is not an object');
    checkStream(c.stream);
    if (states.has(c.stream)) throw bad('changes', `stream ${c.stream} appears twice`);
    const h = groupHead(ctx, group, c.stream);
    if (c.rev !== h.rev + 1) throw bad('changes', `stream ${c.stream} is at revision ${h.rev}; the change has revision ${describeInput(c.rev)}`);
    const before = group.states.get(c.stream) ?? (await currentTreeOf(ctx, c.stream));
    // The change validates the patch first (the same PATCH_INVALID as validatePatch).
    const { net, tree: after } = before.change(c.patch);
    if (Object.keys(net).length === 0) throw bad('changes', `the patch for ${c.stream} changes nothing`);
    const problem = stateProblem(c.stream, after);
    if (problem !== null) throw bad('changes', `the patch for ${c.stream} leaves an invalid state: ${problem}`);
    states.set(c.stream, after);
  }
  const transition: Transition = { seq: t.seq, time: t.time, changes: t.changes.map((c) => ({ stream: c.stream, rev: c.rev, patch: c.patch })), prevHash: t.prevHash, hash: t.hash };
  if (t.id !== undefined) transition.id = t.id;
  if (meta !== undefined) transition.meta = meta;
  if (transitionHash(t.prevHash, transition) !== t.hash) throw bad('hash', 'hash does not match sha256(prevHash ‖ canonical(body))');
  return { transition, states, sync: ctx.settings.durability === 'fsync' };
}
