/**
 * Automatic savepoints (README "Tags", `StoreOptions.savepoints`): when a writer starts a burst —
 * its first transition after at least `idleMs` without one, or its first since the store was
 * opened — the seq before that transition is tagged `savepoint.<writer>`, so "the state before
 * this writer's last burst" is always one name away (`undo --since savepoint.<writer>`).
 *
 * When each writer last wrote is this process's memory, not the log's: after a reopen, or in
 * another process sharing a PostgreSQL store, a burst may get one savepoint too many, never one
 * too few for the writes this process accepted. The tag is a transition of its own, published
 * right after the one that started the burst (best effort, as retention is: a failure is
 * swallowed, and the next burst tags again).
 */
import { metaWriter } from '@stateflow/core';
import { DECLARATION_STREAMS, isReservedStream } from '../declarations.js';
import type { Transition } from '../types.js';
import { enqueue } from './publication.js';
import type { StoreContext } from './store-context.js';

/** Per open store: each writer's label → the time (ms) of its last transition. */
const lastWrites = new WeakMap<StoreContext, Map<string, number>>();

/** Most characters of a savepoint tag name (the tag grammar's bound). */
const MAX_NAME = 128;

/** The savepoint tag of a writer label: `savepoint.` and the label with every run of other characters as `-`. */
export function savepointName(label: string): string {
  return `savepoint.${label.replace(/[^A-Za-z0-9_.-]+/g, '-')}`.slice(0, MAX_NAME);
}

/** Tag the seq before `t` when `t` starts a burst of its writer (see the module header). */
export async function noteSavepoint(ctx: StoreContext, t: Transition): Promise<void> {
  const policy = ctx.settings.savepoints;
  if (policy === null || t.changes.every((c) => isReservedStream(c.stream))) return;
  const label = metaWriter(t.meta);
  if (label === undefined) return;
  let writes = lastWrites.get(ctx);
  if (writes === undefined) lastWrites.set(ctx, (writes = new Map()));
  const time = Date.parse(t.time);
  const last = writes.get(label);
  writes.set(label, time);
  if (last !== undefined && time - last < policy.idleMs) return;
  const name = savepointName(label);
  try {
    await enqueue(ctx, [{ changes: { [DECLARATION_STREAMS.tags]: { [name]: { seq: t.seq - 1, stream: null, rev: null } } }, meta: { savepoint: { writer: label, before: t.seq } } }]);
  } catch {
    // see the module header
  }
}
