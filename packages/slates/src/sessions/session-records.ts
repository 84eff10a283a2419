/**
 * Reading and writing session records (seeds/ladr-stateful-sessions.txt "A session has a
 * lifecycle").
 *
 * Every lifecycle event (created, used, paused, resumed, closed, expired, purged) is one
 * transition on the session's meta stream `ladder-session:<id>`, with transition meta
 * `{ kind: 'session', event, user }`, so sessions get history and audit from the store. Each
 * write names the record revision it was computed against, so a lifecycle change made from a
 * stale record conflicts instead of overwriting a newer one.
 */
import { StateflowError, applyPatch, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { SESSION_ID_PATTERN, SESSION_META_PREFIX, decodeSessionRecord, isSessionRecord, sessionMetaStream, sessionSlateStream } from './session-record.js';
import type { SessionRecord } from './session-record.js';

/** A lifecycle event, recorded as `meta.event` of its transition. */
export type SessionEvent = 'created' | 'used' | 'paused' | 'resumed' | 'closed' | 'expired' | 'purged';

/** A session record with the revision of its meta stream it was read at. */
export interface LoadedSession {
  record: SessionRecord;
  rev: number;
}

/** The transition meta of a lifecycle event. */
export function sessionEventMeta(event: SessionEvent, user: string): JsonObject {
  return { kind: 'session', event, user };
}

/** The record patch of a resume: active again, used now, any recorded execution state dropped. */
export function resumePatch(record: SessionRecord, now: Date): JsonObject {
  const patch: JsonObject = { status: 'active', lastUsedAt: now.toISOString() };
  if (record.execution !== undefined) patch.execution = null;
  return patch;
}

/** The session records of one store. */
export class SessionRecords {
  constructor(readonly store: Store) {}

  /** Ids of every session of every user, in stream order. */
  async ids(): Promise<string[]> {
    const heads = await this.store.streams();
    return heads.filter((h) => h.stream.startsWith(SESSION_META_PREFIX)).map((h) => h.stream.slice(SESSION_META_PREFIX.length));
  }

  /**
   * The record of `id` whoever owns it; `undefined` when there is none.
   * @throws STORE_CORRUPT `{ detail, stream }` when the meta stream holds something else.
   */
  async read(id: string): Promise<SessionRecord | undefined> {
    const meta = sessionMetaStream(id);
    const state = await this.store.state(meta);
    return Object.keys(state).length === 0 ? undefined : decodeSessionRecord(meta, state);
  }

  /**
   * The record of `id` for a listing, a count or the sweep: `undefined` also when it does not
   * decode, so one damaged record leaves every other session listable and swept (DESIGN.md
   * "Fail closed": streams whose records are intact stay usable); every direct use of it
   * ({@link load}) fails with STORE_CORRUPT.
   */
  async readIntact(id: string): Promise<SessionRecord | undefined> {
    try {
      return await this.read(id);
    } catch (err) {
      if (isStateflowError(err, 'STORE_CORRUPT') && err.details.stream === sessionMetaStream(id)) return undefined;
      throw err;
    }
  }

  /**
   * The caller's record with its revision.
   * @throws SESSION_NOT_FOUND when the id is malformed, unknown or owned by another user (the
   *   same answer for all three, so ids leak nothing); STORE_CORRUPT `{ detail, stream }` when
   *   the meta stream holds something other than a session record.
   */
  async load(id: string, owner: string): Promise<LoadedSession> {
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id);
    const meta = sessionMetaStream(id);
    const view = await this.store.view([meta]);
    const entry = view.streams[meta];
    if (entry === undefined || Object.keys(entry.state).length === 0) throw notFound(id);
    const record = decodeSessionRecord(meta, entry.state);
    if (record.id !== id || record.owner !== owner) throw notFound(id);
    return { record, rev: entry.rev };
  }

  /**
   * Record a new session and its initial slate (omitted when empty) in one transition; both
   * streams must not exist yet.
   */
  async create(record: SessionRecord, initialSlate: JsonObject | undefined): Promise<void> {
    const meta = sessionMetaStream(record.id);
    const changes: Record<string, JsonObject> = { [meta]: record };
    const expected: Record<string, 'none'> = { [meta]: 'none' };
    if (initialSlate !== undefined && Object.keys(initialSlate).length > 0) {
      const slate = sessionSlateStream(record.ladder, record.id);
      changes[slate] = initialSlate;
      expected[slate] = 'none';
    }
    await this.store.publish({ changes, expected, meta: sessionEventMeta('created', record.owner) });
  }

  /**
   * Publish `patch` on the record as `event` by `user` (default: the owner), guarded by the
   * revision it was loaded at.
   * @returns the record as the store now holds it (the patch applied by core's patch semantics).
   * @throws CONFLICT when the record moved since it was loaded; INTERNAL when the patch would
   *   leave something other than a session record (checked before anything is published).
   */
  async update(loaded: LoadedSession, patch: JsonObject, event: SessionEvent, user?: string): Promise<LoadedSession> {
    const meta = sessionMetaStream(loaded.record.id);
    const record = applyPatch(loaded.record, patch);
    if (!isSessionRecord(record)) {
      throw new StateflowError('INTERNAL', `A lifecycle change of session "${loaded.record.id}" would leave an invalid record; nothing was published`, { operation: event });
    }
    const published = await this.store.publish({
      changes: { [meta]: patch },
      expected: { [meta]: loaded.rev },
      meta: sessionEventMeta(event, user ?? loaded.record.owner),
    });
    return { record, rev: published.transition === null ? loaded.rev : loaded.rev + 1 };
  }
}

function notFound(id: string): StateflowError<'SESSION_NOT_FOUND'> {
  return new StateflowError('SESSION_NOT_FOUND', `Session "${id}" not found`, { session: id });
}
