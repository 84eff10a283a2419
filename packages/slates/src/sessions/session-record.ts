/**
 * The session record and the store streams a session owns
 * (seeds/ladr-stateful-sessions.txt "A session has a lifecycle"; DESIGN.md "Store model").
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { StateflowError } from '@stateflow/core';
import { decodeStored, recordDecoder } from '../internal/stored-record.js';
import { ExecutionStateSchema } from './session-execution.js';

/**
 * Lifecycle status of a ladder session.
 *
 * `created` (declared files initialised, never called) → `active` (called at least once) ⇄
 * `paused` → `closed` (by its owner) or `expired` (idle longer than the configured period).
 * `closed` and `expired` are final: the session is readable during retention, never callable.
 */
export type SessionStatus = 'created' | 'active' | 'paused' | 'closed' | 'expired';

/** Every {@link SessionStatus}, in lifecycle order. */
export const SESSION_STATUSES = ['created', 'active', 'paused', 'closed', 'expired'] as const satisfies readonly SessionStatus[];

const Time = Type.String({ description: 'ISO 8601 UTC' });

/** The layout of {@link SessionRecord}, as its meta stream holds it. */
const SessionRecordSchema = Type.Object({
  id: Type.String(),
  ladder: Type.String(),
  owner: Type.String(),
  name: Type.String(),
  status: Type.Union(SESSION_STATUSES.map((status) => Type.Literal(status))),
  createdAt: Time,
  lastUsedAt: Time,
  closedAt: Type.Optional(Time),
  expiredAt: Type.Optional(Time),
  purgedAt: Type.Optional(Time),
  execution: Type.Optional(ExecutionStateSchema),
});

/**
 * One ladder session, as stored in its meta stream ({@link sessionMetaStream}). Times are ISO
 * 8601 UTC strings.
 *
 * - `id`: `sess_` followed by 32 lowercase hex characters (128 random bits).
 * - `ladder`: the ladder the session is bound to, `@author/name`.
 * - `owner`: user id of the creator; only this user can see or use the session.
 * - `name`: caller-chosen display name (may be empty).
 * - `lastUsedAt`: time of the last call (equals `createdAt` until the first call).
 * - `closedAt`: when the owner closed it (status `closed`); `expiredAt`: when it passed its idle
 *   period, `lastUsedAt` + idle period (status `expired`); `purgedAt`: when retention deleted its
 *   slates and agent state (the record itself stays for audit).
 * - `execution`: the execution state recorded by a pause (step reached, model outputs so far);
 *   absent when the session was paused between calls.
 */
export type SessionRecord = Static<typeof SessionRecordSchema>;

const sessionRecord = recordDecoder(SessionRecordSchema, 'session record');

/**
 * A session record read from its meta stream `stream`.
 * @throws STORE_CORRUPT `{ detail, stream }` when it is not a session record's layout.
 */
export function decodeSessionRecord(stream: string, state: unknown): SessionRecord {
  return decodeStored(sessionRecord, state, stream);
}

/** True when `value` has the layout of a session record. */
export function isSessionRecord(value: unknown): value is SessionRecord {
  return sessionRecord.check.Check(value);
}

/** Prefix of every session meta stream. */
export const SESSION_META_PREFIX = 'ladder-session:';

/** The stream holding one session's record and its lifecycle history: `ladder-session:<id>`. */
export function sessionMetaStream(id: string): string {
  return `${SESSION_META_PREFIX}${id}`;
}

/** The slate stream of a ladder session (DESIGN.md "Ladder slates"): `slate:<ladder>:<session>`. */
export function sessionSlateStream(ladder: string, session: string): string {
  return `slate:${ladder}:${session}`;
}

/** The agent-state stream the tools use for a session scope: `session:<id>`. */
export function agentSessionStream(id: string): string {
  return `session:${id}`;
}

/** Shape of a session id: `sess_` + 32 lowercase hex characters. */
export const SESSION_ID_PATTERN = /^sess_[0-9a-f]{32}$/;

/** True for the final statuses `closed` and `expired`: readable during retention, never callable. */
export function isEnded(status: SessionStatus): boolean {
  return status === 'closed' || status === 'expired';
}

/**
 * Refuse a call or lifecycle change of an ended session.
 * @throws SESSION_CLOSED `{ session, status }` when the record is closed or expired.
 */
export function assertNotEnded(record: SessionRecord): void {
  if (isEnded(record.status)) {
    const verb = record.status === 'closed' ? 'was closed' : 'expired after being idle';
    throw new StateflowError(
      'SESSION_CLOSED',
      `Session "${record.id}" ${verb}; it can be read during retention but not called. Create a new session.`,
      { session: record.id, status: record.status },
    );
  }
}

/**
 * Refuse a call of a session that cannot take one now.
 * @throws SESSION_CLOSED when it is closed or expired; SESSION_PAUSED `{ session }` when paused.
 */
export function assertCallable(record: SessionRecord): void {
  assertNotEnded(record);
  if (record.status === 'paused') {
    throw new StateflowError(
      'SESSION_PAUSED',
      `Session "${record.id}" is paused; resume it (POST …/sessions/${record.id}/resume) before calling it.`,
      { session: record.id },
    );
  }
}

/** The ladder namespace whose slates persist in the local store without any session lifecycle. */
export const LOCAL_NAMESPACE = 'local';

/** Session key under which a `local/` ladder keeps its one slate stream. */
export const LOCAL_SESSION = 'local';

/**
 * True for a ladder in the `local/` namespace (`@local/name` or `local/name`), which has no
 * platform session API (seeds/ladr-stateful-sessions.txt "local ladders don't have sessions").
 */
export function isLocalLadder(ladder: string): boolean {
  return ladder.replace(/^@/, '').startsWith(`${LOCAL_NAMESPACE}/`);
}
