/**
 * Ladder session lifecycle, recorded in the store (seeds/ladr-stateful-sessions.txt "A session has a
 * lifecycle", "Sessions guarantee single-writer per call", "Cross-user isolation").
 *
 * The facade over the session's jobs: the records and their lifecycle transitions
 * (`session-records.ts`), expiry and retention (`session-retention.ts`), the session locks
 * (`session-locks.ts`), pause, resume and close (`session-pausing.ts`) and the parking of
 * paused calls (`paused-calls.ts`); this file creates, finds, calls and sweeps sessions.
 */
import { randomBytes } from 'node:crypto';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { assertCallable, isEnded, sessionMetaStream } from './session-record.js';
import type { SessionRecord } from './session-record.js';
import { SessionRecords } from './session-records.js';
import type { LoadedSession } from './session-records.js';
import { DAY_MS, applyRetention, isRetentionDue } from './session-retention.js';
import type { RetentionPolicy } from './session-retention.js';
import { PausableCalls } from './paused-calls.js';
import type { ExecutionState, PauseCheckpoint } from './session-execution.js';
import { SessionLocks } from './session-locks.js';
import { SessionPausing } from './session-pausing.js';
import type { Proceed, ResumeResult } from './session-pausing.js';

/** Options of {@link SessionManager}. */
export interface SessionManagerOptions {
  /** The store holding session records and slates. */
  store: Store;
  /** Clock for lifecycle times (tests inject one). Default: `() => new Date()`. */
  clock?: () => Date;
  /**
   * Idle period in ms after which an unused session expires (checked on access and by
   * {@link SessionManager.sweep}). Default 30 days; must be > 0.
   */
  idleMs?: number;
  /**
   * How long in ms a closed or expired session keeps its slates and agent state (readable for
   * audit, never callable) before they are deleted. `0` deletes at close/expiry;
   * `Infinity` keeps forever. Default 30 days.
   */
  retentionMs?: number;
}

/** Input of {@link SessionManager.create}. */
export interface CreateSessionInput {
  /** Ladder id `@author/name`. */
  ladder: string;
  /** Creator's user id; the only user who can see the session. */
  owner: string;
  /** Display name. Default `''`. */
  name?: string;
  /**
   * Initial slate state with every declared file initialised per its `init:`, written in the
   * same transition as the record. Omit or `{}` for a ladder without slates.
   */
  initialSlate?: JsonObject;
}

/** Result of {@link SessionManager.sweep}: ids that changed. */
export interface SweepReport {
  expired: string[];
  purged: string[];
}

/**
 * Creates, finds, calls and ends ladder sessions on one store.
 *
 * Guarantees:
 * - Isolation: a session another user owns is reported exactly like one that does not exist
 *   (`SESSION_NOT_FOUND`), so ids leak nothing.
 * - Serial calls: {@link call} and every lifecycle change of one session run one at a time, in
 *   arrival order, under the session's lock (`Store.withLock`): in this process on LevelDB
 *   (whose directory lock keeps a store to one process), across every server on a PostgreSQL
 *   store (an advisory lock held for the call). No acknowledged write is lost — stronger than
 *   the seed's last-write-wins; the record's CAS still decides if a lock was lost.
 * - Across servers a paused call's execution state is in the store: a resume or close that
 *   reaches another server than the one whose call is parked acts on the record, and the parked
 *   call, which watches its record, continues or fails closed (see {@link resume}).
 * - One sweep at a time acts on a session ({@link sweep} skips a session whose lock is held).
 * - Expiry and retention are evaluated lazily on every access and eagerly by {@link sweep}.
 * - Fail closed: a record that does not decode fails every use of its session with
 *   `STORE_CORRUPT` naming its stream, and is left out of {@link list}, {@link countByStatus}
 *   and {@link sweep}, so the other sessions stay usable.
 *
 * @example
 * const sessions = new SessionManager({ store });
 * const { id } = await sessions.create({ ladder: '@alice/researcher', owner: 'alice' });
 * await sessions.call(id, 'alice', async (record, control) => runLadder({ store, ladder, session: id, input, model: pausableModel(model, control, {}) }));
 */
export class SessionManager {
  readonly store: Store;
  readonly idleMs: number;
  readonly retentionMs: number;
  readonly #clock: () => Date;
  readonly #policy: RetentionPolicy;
  readonly #records: SessionRecords;
  readonly #calls: PausableCalls;
  readonly #locks: SessionLocks;
  readonly #pausing: SessionPausing;

  /**
   * @throws USAGE when `idleMs` is not a positive number or `retentionMs` is negative.
   */
  constructor(options: SessionManagerOptions) {
    this.store = options.store;
    this.#clock = options.clock ?? (() => new Date());
    this.idleMs = options.idleMs ?? 30 * DAY_MS;
    this.retentionMs = options.retentionMs ?? 30 * DAY_MS;
    if (!(this.idleMs > 0)) {
      throw new StateflowError('USAGE', `Session idle period must be > 0 ms, got ${this.idleMs}`, {});
    }
    if (!(this.retentionMs >= 0)) {
      throw new StateflowError('USAGE', `Session retention must be ≥ 0 ms, got ${this.retentionMs}`, {});
    }
    this.#policy = { idleMs: this.idleMs, retentionMs: this.retentionMs };
    this.#records = new SessionRecords(this.store);
    this.#calls = new PausableCalls(this.#records, this.#clock);
    this.#locks = new SessionLocks(this.store);
    this.#pausing = new SessionPausing({
      records: this.#records,
      calls: this.#calls,
      locks: this.#locks,
      now: () => this.now(),
      refresh: (loaded) => this.#refresh(loaded),
    });
  }

  /** Current time of the injected clock. */
  now(): Date {
    return this.#clock();
  }

  /**
   * Create a session (status `created`): its record and initial slate in one transition.
   * @returns the new record.
   */
  async create(input: CreateSessionInput): Promise<SessionRecord> {
    const at = this.now().toISOString();
    const record: SessionRecord = {
      id: `sess_${randomBytes(16).toString('hex')}`,
      ladder: input.ladder,
      owner: input.owner,
      name: input.name ?? '',
      status: 'created',
      createdAt: at,
      lastUsedAt: at,
    };
    await this.#records.create(record, input.initialSlate);
    return record;
  }

  /**
   * The caller's session, after applying any expiry or retention that is due.
   * @throws SESSION_NOT_FOUND when the id is unknown or owned by another user.
   */
  async get(id: string, owner: string): Promise<SessionRecord> {
    const loaded = await this.#records.load(id, owner);
    if (!this.#due(loaded.record)) return loaded.record;
    return this.#serial(sessionMetaStream(id), async () => (await this.#refresh(await this.#records.load(id, owner))).record);
  }

  /**
   * Every session's recorded status, counted (`{ active: 3, closed: 1 }`; statuses with no session
   * are absent): for metrics. Reads only — a session past its idle period counts as recorded
   * until a request or the sweep marks it `expired`.
   */
  async countByStatus(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const id of await this.#records.ids()) {
      const record = await this.#records.readIntact(id);
      if (record !== undefined) counts[record.status] = (counts[record.status] ?? 0) + 1;
    }
    return counts;
  }

  /**
   * The caller's sessions, oldest first, optionally of one ladder (expiry/retention applied).
   */
  async list(owner: string, ladder?: string): Promise<SessionRecord[]> {
    const out: SessionRecord[] = [];
    for (const id of await this.#records.ids()) {
      const record = await this.#records.readIntact(id);
      if (record === undefined || record.owner !== owner) continue;
      if (ladder !== undefined && record.ladder !== ladder) continue;
      out.push(await this.get(id, owner));
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /**
   * Run one call in the session, serialised with every other call and lifecycle change of it.
   * Marks the session `active` and records `lastUsedAt` before `fn` runs. `fn` receives a
   * {@link PauseCheckpoint} to give its model (see {@link pausableModel}) so a pause can stop
   * the call between steps.
   * @throws SESSION_NOT_FOUND unknown or foreign session; SESSION_CLOSED closed or expired
   *   (details.status says which); SESSION_PAUSED paused (resume it first).
   */
  async call<T>(id: string, owner: string, fn: (record: SessionRecord, control: PauseCheckpoint) => Promise<T>): Promise<T> {
    // Fail fast instead of queueing behind a paused call.
    const before = await this.#records.load(id, owner);
    if (before.record.status === 'paused' || this.#calls.isParked(id)) assertCallable({ ...before.record, status: 'paused' });
    return this.#serial(sessionMetaStream(id), async () => {
      const loaded = await this.#refresh(await this.#records.load(id, owner));
      assertCallable(loaded.record);
      const { record } = await this.#records.update(loaded, { status: 'active', lastUsedAt: this.now().toISOString() }, 'used');
      return this.#calls.run(record, fn);
    });
  }

  /**
   * The CAS guard of a write to the session's agent state (`session:<id>`) made outside the
   * session's lock (the state API): `{ "ladder-session:<id>": <record revision> }`, to pass as
   * an `expected` revision of the same publication. A close, expiry or purge moves the record
   * stream, so a write guarded this way can never land after the session ended: its
   * publication conflicts and, evaluated again, this refuses it.
   * @throws SESSION_NOT_FOUND unknown or foreign session; SESSION_CLOSED closed or expired.
   */
  async writeGuard(id: string, owner: string): Promise<Record<string, number>> {
    let loaded = await this.#records.load(id, owner);
    if (this.#due(loaded.record)) {
      await this.get(id, owner);
      loaded = await this.#records.load(id, owner);
    }
    const { record } = loaded;
    if (isEnded(record.status)) {
      throw new StateflowError('SESSION_CLOSED', `Session "${record.id}" is ${record.status}; its state can be read during retention but not patched`, {
        session: record.id,
        status: record.status,
      });
    }
    return { [sessionMetaStream(id)]: loaded.rev };
  }

  /**
   * Run `fn` serialised under an arbitrary key (used for `local/` ladders, which have no session
   * lifecycle but share the same single-writer guarantee).
   */
  serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#serial(key, fn);
  }

  /**
   * Pause the session. With a call in flight, the call finishes its current step, records its
   * execution state ({@link ExecutionState}) at its next model call and waits; this resolves
   * then (or, if the call ends first, once it is paused between calls). Without a call in flight
   * the session is paused between calls. Pausing a paused session returns it unchanged.
   * @throws SESSION_NOT_FOUND; SESSION_CLOSED when closed or expired.
   */
  pause(id: string, owner: string): Promise<SessionRecord> {
    return this.#pausing.pause(id, owner);
  }

  /**
   * Resume a paused session (status `active` again). A call parked by {@link pause} in this
   * process continues. A call parked in another server (its execution state recorded, its
   * session lock held there) continues there: this publishes the resumed record, which that
   * call is watching. A call whose execution state was recorded by a process that is gone (the
   * lock is free) is run again by `proceed` (under the session's lock, before any other call),
   * which should replay `execution.calls` (see {@link pausableModel}); its result is returned
   * as `continued`. Resuming a session that is not paused returns it unchanged.
   * @throws SESSION_NOT_FOUND; SESSION_CLOSED when closed or expired; what `proceed` throws.
   */
  resume<T>(id: string, owner: string, proceed?: Proceed<T>): Promise<ResumeResult<T>> {
    return this.#pausing.resume(id, owner, proceed);
  }

  /**
   * Close the session: no further calls; state kept for the retention period, then deleted.
   * A call parked by a pause fails with SESSION_CLOSED. Closing an ended session returns it
   * unchanged.
   * @throws SESSION_NOT_FOUND unknown or foreign session.
   */
  close(id: string, owner: string): Promise<SessionRecord> {
    return this.#pausing.close(id, owner);
  }

  /**
   * Release every call parked by a pause with SESSION_PAUSED (their execution state stays in
   * the store, so a resume after restart continues them). Call before closing the store.
   */
  shutdown(): void {
    this.#calls.shutdown();
  }

  /** Expire idle sessions and delete state past retention, for every session of every user. */
  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { expired: [], purged: [] };
    for (const id of await this.#records.ids()) {
      const before = await this.#records.readIntact(id);
      if (before === undefined || !this.#due(before)) continue;
      // A session whose lock is held (a call, or another server's sweep) is left to the next sweep.
      const attempt = await this.#locks.ifFree(sessionMetaStream(id), async () => {
        const record = await this.#records.read(id);
        return record === undefined ? undefined : (await this.#refresh(await this.#records.load(id, record.owner))).record;
      });
      const after = attempt.ran ? attempt.value : undefined;
      if (after === undefined) continue;
      if (after.status === 'expired' && before.status !== 'expired') report.expired.push(id);
      if (after.purgedAt !== undefined && before.purgedAt === undefined) report.purged.push(id);
    }
    return report;
  }

  /**
   * Lifecycle requests of this process that wait on a call: `pause` — pauses a call in flight
   * here has not reached yet (it parks at its next model call); `resume` — resumes of a call
   * that is parking here, or waiting for a call in another process to park or end; `close` —
   * closes waiting for a call in another process. For metrics, and for a client that must know
   * its request is waiting before it lets the call go on.
   */
  waiting(): { pause: number; resume: number; close: number } {
    const here = this.#calls.waiting();
    const elsewhere = this.#pausing.waitingElsewhere();
    return { pause: here.pause, resume: here.resume + elsewhere.resume, close: elsewhere.close };
  }

  /** Resolves when every queued call and lifecycle change of this process has settled. */
  idle(): Promise<void> {
    return this.#locks.idle();
  }

  /** Run `fn` under the lock `key` (a session's: its meta stream id), tracked for {@link idle}. */
  #serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.serial(key, fn);
  }

  /** True when expiry or retention deletion is due for the record at the current time. */
  #due(record: SessionRecord): boolean {
    return isRetentionDue(record, this.now(), this.#policy);
  }

  /** Apply expiry and retention that are due; must run inside the session's lock. */
  #refresh(loaded: LoadedSession): Promise<LoadedSession> {
    return applyRetention(this.#records, loaded, this.#policy, this.#clock);
  }
}
