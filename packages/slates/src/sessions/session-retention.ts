/**
 * Expiry and retention of sessions (seeds/ladr-stateful-sessions.txt "A session has a
 * lifecycle": an idle session expires; a closed or expired one is readable during retention,
 * then its state is deleted).
 *
 * Both are decided from the record and the clock alone, so they are evaluated lazily wherever a
 * record is read and eagerly by a sweep, with the same answer.
 */
import type { JsonObject } from '@stateflow/core';
import { retryOnConflict } from '@stateflow/store';
import { agentSessionStream, isEnded, sessionMetaStream, sessionSlateStream } from './session-record.js';
import type { SessionRecord } from './session-record.js';
import { sessionEventMeta } from './session-records.js';
import type { LoadedSession, SessionRecords } from './session-records.js';

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/** Publications a purge tries before giving up (each re-reads the states it deletes). */
const PURGE_ATTEMPTS = 5;

/** How long sessions live. */
export interface RetentionPolicy {
  /** Idle period in ms after which an unused session expires; > 0. */
  idleMs: number;
  /** How long in ms an ended session keeps its slates and agent state; ≥ 0, `Infinity` keeps forever. */
  retentionMs: number;
}

/** When a session that has not ended expires (ms since the epoch); `undefined` once it has ended. */
function expiresAt(record: SessionRecord, policy: RetentionPolicy): number | undefined {
  return isEnded(record.status) ? undefined : Date.parse(record.lastUsedAt) + policy.idleMs;
}

/** When an ended session's state is deleted: its end (close, else expiry) plus retention. */
function purgeAt(record: SessionRecord, policy: RetentionPolicy): number {
  return Date.parse(record.closedAt ?? record.expiredAt ?? record.lastUsedAt) + policy.retentionMs;
}

/** True when expiry or the deletion of an ended session's state is due at `now`. */
export function isRetentionDue(record: SessionRecord, now: Date, policy: RetentionPolicy): boolean {
  const expiry = expiresAt(record, policy);
  if (expiry !== undefined) return now.getTime() >= expiry;
  return record.purgedAt === undefined && now.getTime() >= purgeAt(record, policy);
}

/**
 * Apply the expiry and deletion that are due: an idle session becomes `expired` (its
 * `expiredAt` is when it passed its idle period, not now), then an ended session past retention
 * is purged. Must run inside the session's lock.
 * @returns the record as it stands afterwards.
 * @throws CONFLICT when a purge conflicted {@link PURGE_ATTEMPTS} times.
 */
export async function applyRetention(records: SessionRecords, loaded: LoadedSession, policy: RetentionPolicy, clock: () => Date): Promise<LoadedSession> {
  let current = loaded;
  const expiry = expiresAt(current.record, policy);
  if (expiry !== undefined && clock().getTime() >= expiry) {
    current = await records.update(current, { status: 'expired', expiredAt: new Date(expiry).toISOString() }, 'expired');
  }
  if (isRetentionDue(current.record, clock(), policy)) current = await purge(records, current, clock);
  return current;
}

/**
 * Delete the session's slates and agent state (one transition, guarded by their heads and the
 * record's), then compact their history away; the record stays, with `purgedAt`. A write to them
 * between the read and the publication (the state API writes outside the session's lock)
 * makes the publication conflict: the states are read again. A conflict on the record itself is
 * final: the record changed under the caller.
 */
async function purge(records: SessionRecords, loaded: LoadedSession, clock: () => Date): Promise<LoadedSession> {
  const { store } = records;
  const { record } = loaded;
  const targets = [sessionSlateStream(record.ladder, record.id), agentSessionStream(record.id)];
  const meta = sessionMetaStream(record.id);
  const toCompact = await retryOnConflict({ attempts: PURGE_ATTEMPTS, retryable: (err) => err.details.stream !== meta }, async () => {
    const changes: Record<string, JsonObject> = { [meta]: { purgedAt: clock().toISOString() } };
    const expected: Record<string, number> = { [meta]: loaded.rev };
    const view = await store.view(targets);
    const streams: string[] = [];
    for (const stream of targets) {
      const current = view.streams[stream];
      if (current === undefined || current.rev === 0) continue;
      streams.push(stream);
      expected[stream] = current.rev;
      const keys = Object.keys(current.state);
      if (keys.length > 0) changes[stream] = Object.fromEntries(keys.map((k) => [k, null]));
    }
    await store.publish({ changes, expected, meta: sessionEventMeta('purged', record.owner) });
    return streams;
  });
  for (const stream of toCompact) await store.compact(stream, { keepRevisions: 1 });
  return records.load(record.id, record.owner);
}
