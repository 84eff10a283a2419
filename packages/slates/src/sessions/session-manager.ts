/**
 * Ladder session lifecycle, recorded in the store (seeds/ladr-stateful-sessions.txt "A session has a
 * lifecycle", "Sessions guarantee single-writer per call", "Cross-user isolation").
 *
 * The facade over the session's jobs: the records and their lifecycle transitions
 * (`session-records.ts`), expiry and retention (`session-retention.ts`), and the parking of
 * paused calls (`paused-calls.ts`); this file orders them under the session's lock (the
 * store's named lock `ladder-session:<id>`: in this process on LevelDB, across every server on
 * a PostgreSQL store).
 */
import { randomBytes } from 'node:crypto';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { assertCallable, assertNotEnded, isEnded, sessionMetaStream } from './session-record.js';
import type { SessionRecord } from './session-record.js';
import { SessionRecords, resumePatch } from './session-records.js';
import type { LoadedSession } from './session-records.js';
import { DAY_MS, applyRetention, isRetentionDue } from './session-retention.js';
import type { RetentionPolicy } from './session-retention.js';
import { PausableCalls } from './paused-calls.js';
import type { ExecutionState, PauseCheckpoint } from './session-execution.js';

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

/** Result of {@link SessionManager.resume}. */
export interface ResumeResult<T = unknown> {
  record: SessionRecord;
  /**
   * Execution state recorded by a pause in an earlier process; `undefined` when the session was
   * paused between calls or its parked call continued in this process.
   */
  execution: ExecutionState | undefined;
  /** What `proceed` returned when it ran the recorded call again. */
  continued?: T;
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
 */
export class SessionManager {
  readonly store: Store;
  readonly idleMs: number;
  readonly retentionMs: number;
  readonly #clock: () => Date;
  readonly #policy: RetentionPolicy;
  readonly #records: SessionRecords;
  readonly #calls: PausableCalls;
  /** This process's calls and lifecycle changes under a session lock, for {@link idle}. */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Resume and close requests waiting for a call of another process to park or end (see {@link waiting}). */
  readonly #waitingElsewhere = { resume: 0, close: 0 };

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
  async pause(id: string, owner: string): Promise<SessionRecord> {
    const loaded = await this.#records.load(id, owner);
    assertNotEnded(loaded.record);
    const inFlight = this.#calls.pause(loaded);
    if (inFlight !== undefined) return inFlight;
    return this.#serial(sessionMetaStream(id), async () => {
      const current = await this.#refresh(await this.#records.load(id, owner));
      assertNotEnded(current.record);
      if (current.record.status === 'paused') return current.record;
      return (await this.#records.update(current, { status: 'paused' }, 'paused')).record;
    });
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
  async resume<T>(
    id: string,
    owner: string,
    proceed?: (record: SessionRecord, execution: ExecutionState, control: PauseCheckpoint) => Promise<T>,
  ): Promise<ResumeResult<T>> {
    const loaded = await this.#records.load(id, owner);
    const inFlight = this.#calls.resume(loaded);
    if (inFlight !== undefined) return { record: await inFlight, execution: undefined };
    const locked = async (): Promise<ResumeResult<T>> => {
      const current = await this.#refresh(await this.#records.load(id, owner));
      assertNotEnded(current.record);
      if (current.record.status !== 'paused') return { record: current.record, execution: undefined };
      const execution = current.record.execution;
      const { record } = await this.#records.update(current, resumePatch(current.record, this.now()), 'resumed');
      if (execution === undefined || proceed === undefined) return { record, execution };
      const continued = await this.#calls.run(record, (r, control) => proceed(r, execution, control));
      return { record, execution, continued };
    };
    const outcome = await this.#unlessParkedElsewhere(id, owner, 'resume', locked);
    if (outcome.ran) return outcome.value;
    const parked = outcome.parked;
    return { record: (await this.#records.update(parked, resumePatch(parked.record, this.now()), 'resumed')).record, execution: undefined };
  }

  /**
   * Close the session: no further calls; state kept for the retention period, then deleted.
   * A call parked by a pause fails with SESSION_CLOSED. Closing an ended session returns it
   * unchanged.
   * @throws SESSION_NOT_FOUND unknown or foreign session.
   */
  async close(id: string, owner: string): Promise<SessionRecord> {
    await this.#records.load(id, owner); // unknown or foreign: SESSION_NOT_FOUND before touching anything
    this.#calls.interrupt(id);
    const locked = async (): Promise<SessionRecord> => {
      const current = await this.#refresh(await this.#records.load(id, owner));
      if (isEnded(current.record.status)) return current.record;
      const closed = await this.#records.update(current, { status: 'closed', closedAt: this.now().toISOString() }, 'closed');
      try {
        return (await this.#refresh(closed)).record;
      } catch (err) {
        // The close itself is published: answer it. A purge that could not run now (its
        // retries exhausted by writers of the session's state) stays due, and the next access
        // or sweep runs it again.
        if (!isStateflowError(err, 'CONFLICT')) throw err;
        return closed.record;
      }
    };
    const outcome = await this.#unlessParkedElsewhere(id, owner, 'close', locked);
    if (outcome.ran) return outcome.value;
    // The call parked in another server sees the closed record and fails with SESSION_CLOSED;
    // a purge due at once runs at the next access or sweep.
    return (await this.#records.update(outcome.parked, { status: 'closed', closedAt: this.now().toISOString() }, 'closed')).record;
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
      const attempt = await this.#track(
        this.store.withLockIfFree(sessionMetaStream(id), async () => {
          const record = await this.#records.read(id);
          return record === undefined ? undefined : (await this.#refresh(await this.#records.load(id, record.owner))).record;
        }),
      );
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
    return { pause: here.pause, resume: here.resume + this.#waitingElsewhere.resume, close: this.#waitingElsewhere.close };
  }

  /** Resolves when every queued call and lifecycle change of this process has settled. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Run `fn` under the lock `key` (a session's: its meta stream id), tracked for {@link idle}. */
  #serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#track(this.store.withLock(key, fn));
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const done = (): void => void this.#inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  /**
   * Run `locked` under the session's lock — unless a call of the session is parked in another
   * process, which holds the lock while it waits: then `{ ran: false, parked }` with the record
   * (paused, its execution state recorded), and the caller acts on the record, which the parked
   * call follows. A call of this process is waited for (a close has interrupted it). While
   * another process holds the lock for a call that is not parked (running, or about to park
   * for a pause), this tries again every 20–500 ms: the call either ends and frees the lock or
   * parks and records so. Only this process ever holds a sole-writer store's locks, so there
   * this never waits for another process.
   */
  async #unlessParkedElsewhere<T>(
    id: string,
    owner: string,
    request: 'resume' | 'close',
    locked: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false; parked: LoadedSession }> {
    const key = sessionMetaStream(id);
    let waiting = false;
    try {
      for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
        if (this.#calls.isRunning(id)) return { ran: true, value: await this.#serial(key, locked) };
        const loaded = await this.#records.load(id, owner);
        const attempt = await this.#track(this.store.withLockIfFree(key, locked, { local: 'wait' }));
        if (attempt.ran) return attempt;
        if (loaded.record.status === 'paused' && loaded.record.execution !== undefined) return { ran: false, parked: loaded };
        if (!waiting) this.#waitingElsewhere[request] += 1;
        waiting = true;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } finally {
      if (waiting) this.#waitingElsewhere[request] -= 1;
    }
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
