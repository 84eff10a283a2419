/**
 * Ladder session lifecycle, recorded in the store (seeds/ladr-stateful-sessions.txt
 * "A session has a lifecycle", "Sessions guarantee single-writer per call", "Cross-user isolation").
 *
 * Every lifecycle event (created, used, paused, resumed, closed, expired, purged) is one
 * transition on the session's meta stream `ladder-session:<id>`, with transition meta
 * `{ kind: 'session', event, user }`, so sessions get history and audit from the store.
 */
import { randomBytes } from 'node:crypto';
import { StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import {
  SESSION_ID_PATTERN,
  SESSION_META_PREFIX,
  agentSessionStream,
  isEnded,
  sessionMetaStream,
  sessionSlateStream,
} from './session-record.js';
import type { SessionRecord } from './session-record.js';
import { SerialQueue } from './session-queue.js';
import type { ExecutionState, PauseCheckpoint } from './session-execution.js';

/** Publications a purge tries before giving up (each re-reads the states it deletes). */
const PURGE_ATTEMPTS = 5;

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

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

type Loaded = { record: SessionRecord; rev: number };

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

/**
 * A call in flight and where it is in a pause: `running`; `pause-requested` (a pause waits for
 * the call's next model call); `parking` (the call is recording its execution state); `parked`
 * (it waits for a resume). Every request that meets a call in one of these phases is answered
 * from here, never queued behind the call: the call holds the session's queue, so a request
 * queued behind a parked call would wait forever.
 */
interface RunningCall {
  phase: 'running' | 'pause-requested' | 'parking' | 'parked';
  /** Pause requests waiting for the call to park. */
  pauses: Array<Waiter<SessionRecord>>;
  /** Resume requests that arrived while it was parking: answered once the record says paused. */
  resumes: Array<Waiter<SessionRecord>>;
  /** Set by a close that met a pause in progress: the call fails instead of parking. */
  closed?: StateflowError<'SESSION_CLOSED'>;
  parked?: Waiter<void>;
}

/**
 * Creates, finds, calls and ends ladder sessions on one store.
 *
 * Guarantees:
 * - Isolation: a session another user owns is reported exactly like one that does not exist
 *   (`SESSION_NOT_FOUND`), so ids leak nothing.
 * - Serial calls: {@link call} and every lifecycle change of one session run one at a time, in
 *   arrival order (a per-session queue). No acknowledged write is lost — stronger than the
 *   seed's last-write-wins. The queue is per process; the store's directory lock keeps a store
 *   to one process.
 * - Expiry and retention are evaluated lazily on every access and eagerly by {@link sweep}.
 */
export class SessionManager {
  readonly store: Store;
  readonly idleMs: number;
  readonly retentionMs: number;
  readonly #clock: () => Date;
  readonly #queue = new SerialQueue();
  readonly #running = new Map<string, RunningCall>();

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
    const id = `sess_${randomBytes(16).toString('hex')}`;
    const at = this.now().toISOString();
    const record: SessionRecord = {
      id,
      ladder: input.ladder,
      owner: input.owner,
      name: input.name ?? '',
      status: 'created',
      createdAt: at,
      lastUsedAt: at,
    };
    const meta = sessionMetaStream(id);
    const changes: Record<string, JsonObject> = { [meta]: record as unknown as JsonObject };
    const expected: Record<string, 'none'> = { [meta]: 'none' };
    if (input.initialSlate !== undefined && Object.keys(input.initialSlate).length > 0) {
      const slate = sessionSlateStream(input.ladder, id);
      changes[slate] = input.initialSlate;
      expected[slate] = 'none';
    }
    await this.store.publish({ changes, expected, meta: eventMeta('created', input.owner) });
    return record;
  }

  /**
   * The caller's session, after applying any expiry or retention that is due.
   * @throws SESSION_NOT_FOUND when the id is unknown or owned by another user.
   */
  async get(id: string, owner: string): Promise<SessionRecord> {
    const loaded = await this.#load(id, owner);
    if (!this.#due(loaded.record)) return loaded.record;
    return this.#queue.run(id, async () => (await this.#refresh(await this.#load(id, owner))).record);
  }

  /**
   * The caller's sessions, oldest first, optionally of one ladder (expiry/retention applied).
   */
  async list(owner: string, ladder?: string): Promise<SessionRecord[]> {
    const out: SessionRecord[] = [];
    for (const id of await this.#ids()) {
      const record = await this.#read(id);
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
    const before = await this.#load(id, owner);
    if (before.record.status === 'paused' || this.#running.get(id)?.phase === 'parked') assertCallable({ ...before.record, status: 'paused' });
    return this.#queue.run(id, async () => {
      const loaded = await this.#refresh(await this.#load(id, owner));
      assertCallable(loaded.record);
      const at = this.now().toISOString();
      const record = await this.#update(loaded, { status: 'active', lastUsedAt: at }, 'used');
      return this.#tracked(record, fn);
    });
  }

  /**
   * The CAS guard of a write to the session's agent state (`session:<id>`) made outside the
   * session's queue (the state API): `{ "ladder-session:<id>": <record revision> }`, to pass as
   * an `expected` revision of the same publication. A close, expiry or purge moves the record
   * stream, so a write guarded this way can never land after the session ended: its
   * publication conflicts and, evaluated again, this refuses it.
   * @throws SESSION_NOT_FOUND unknown or foreign session; SESSION_CLOSED closed or expired.
   */
  async writeGuard(id: string, owner: string): Promise<Record<string, number>> {
    let loaded = await this.#load(id, owner);
    if (this.#due(loaded.record)) {
      await this.get(id, owner);
      loaded = await this.#load(id, owner);
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
    return this.#queue.run(key, fn);
  }

  /**
   * Pause the session. With a call in flight, the call finishes its current step, records its
   * execution state ({@link ExecutionState}) at its next model call and waits; this resolves
   * then (or, if the call ends first, once it is paused between calls). Without a call in flight
   * the session is paused between calls. Pausing a paused session returns it unchanged.
   * @throws SESSION_NOT_FOUND; SESSION_CLOSED when closed or expired.
   */
  async pause(id: string, owner: string): Promise<SessionRecord> {
    const loaded = await this.#load(id, owner);
    assertNotEnded(loaded.record);
    const running = this.#running.get(id);
    if (running?.phase === 'parked') return loaded.record;
    if (running !== undefined) {
      if (running.phase === 'running') running.phase = 'pause-requested';
      return new Promise<SessionRecord>((resolve, reject) => running.pauses.push({ resolve, reject }));
    }
    return this.#queue.run(id, async () => {
      const current = await this.#refresh(await this.#load(id, owner));
      assertNotEnded(current.record);
      if (current.record.status === 'paused') return current.record;
      return this.#update(current, { status: 'paused' }, 'paused');
    });
  }

  /**
   * Resume a paused session (status `active` again). A call parked by {@link pause} in this
   * process continues. A call whose execution state was recorded by an earlier process is run
   * again by `proceed` (inside the session's queue, before any other call), which should replay
   * `execution.calls` (see {@link pausableModel}); its result is returned as `continued`.
   * Resuming a session that is not paused returns it unchanged.
   * @throws SESSION_NOT_FOUND; SESSION_CLOSED when closed or expired; what `proceed` throws.
   */
  async resume<T>(
    id: string,
    owner: string,
    proceed?: (record: SessionRecord, execution: ExecutionState, control: PauseCheckpoint) => Promise<T>,
  ): Promise<ResumeResult<T>> {
    const loaded = await this.#load(id, owner);
    const running = this.#running.get(id);
    if (running?.phase === 'parked') {
      const record = await this.#update(loaded, resumePatch(loaded.record, this.now()), 'resumed');
      const parked = running.parked;
      running.phase = 'running';
      running.parked = undefined;
      parked?.resolve();
      return { record, execution: undefined };
    }
    if (running?.phase === 'pause-requested') {
      // The pause has not happened yet: cancel it. Its requests answer with the session as it
      // stays, not paused.
      assertNotEnded(loaded.record);
      running.phase = 'running';
      for (const w of running.pauses.splice(0)) w.resolve(loaded.record);
      return { record: loaded.record, execution: undefined };
    }
    if (running?.phase === 'parking') {
      const record = await new Promise<SessionRecord>((resolve, reject) => running.resumes.push({ resolve, reject }));
      return { record, execution: undefined };
    }
    return this.#queue.run(id, async () => {
      const current = await this.#refresh(await this.#load(id, owner));
      assertNotEnded(current.record);
      if (current.record.status !== 'paused') return { record: current.record, execution: undefined };
      const execution = current.record.execution as ExecutionState | undefined;
      const record = await this.#update(current, resumePatch(current.record, this.now()), 'resumed');
      if (execution === undefined || proceed === undefined) return { record, execution };
      const continued = await this.#tracked(record, (r, control) => proceed(r, execution, control));
      return { record, execution, continued };
    });
  }

  /**
   * Close the session: no further calls; state kept for the retention period, then deleted.
   * A call parked by a pause fails with SESSION_CLOSED. Closing an ended session returns it
   * unchanged.
   * @throws SESSION_NOT_FOUND unknown or foreign session.
   */
  async close(id: string, owner: string): Promise<SessionRecord> {
    await this.#load(id, owner); // unknown or foreign: SESSION_NOT_FOUND before touching anything
    const running = this.#running.get(id);
    if (running !== undefined && running.phase !== 'running') {
      // A pause in progress: the call must end (it holds the queue the close waits in), and it
      // wrote nothing, since a call publishes only at its end.
      const closed = new StateflowError('SESSION_CLOSED', `Session "${id}" was closed while paused; the paused call wrote nothing`, {
        session: id,
        status: 'closed',
      });
      running.closed = closed;
      for (const w of [...running.pauses.splice(0), ...running.resumes.splice(0)]) w.reject(closed);
      if (running.phase === 'parked') {
        const parked = running.parked;
        running.parked = undefined;
        running.phase = 'running';
        parked?.reject(closed);
      }
    }
    return this.#queue.run(id, async () => {
      const current = await this.#refresh(await this.#load(id, owner));
      if (isEnded(current.record.status)) return current.record;
      const closed = await this.#update(current, { status: 'closed', closedAt: this.now().toISOString() }, 'closed');
      try {
        return (await this.#refresh({ record: closed, rev: current.rev + 1 })).record;
      } catch (err) {
        // The close itself is published: answer it. A purge that could not run now (its
        // retries exhausted by writers of the session's state) stays due, and the next access
        // or sweep runs it again.
        if (!isStateflowError(err, 'CONFLICT')) throw err;
        return closed;
      }
    });
  }

  /**
   * Release every call parked by a pause with SESSION_PAUSED (their execution state stays in
   * the store, so a resume after restart continues them). Call before closing the store.
   */
  shutdown(): void {
    for (const [id, running] of this.#running) {
      const parked = running.parked;
      if (parked === undefined) continue;
      running.parked = undefined;
      running.phase = 'running';
      parked.reject(
        new StateflowError('SESSION_PAUSED', `Session "${id}" is paused and the server stopped; resume it to continue the call`, {
          session: id,
        }),
      );
    }
  }

  /** Expire idle sessions and delete state past retention, for every session of every user. */
  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { expired: [], purged: [] };
    for (const id of await this.#ids()) {
      const before = await this.#read(id);
      if (before === undefined || !this.#due(before)) continue;
      const after = await this.#queue.run(id, async () => {
        const record = await this.#read(id);
        return record === undefined ? undefined : (await this.#refresh(await this.#load(id, record.owner))).record;
      });
      if (after === undefined) continue;
      if (after.status === 'expired' && before.status !== 'expired') report.expired.push(id);
      if (after.purgedAt !== undefined && before.purgedAt === undefined) report.purged.push(id);
    }
    return report;
  }

  /** Resolves when every queued call and lifecycle change has settled. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Run `fn` as the session's call in flight, so {@link pause} can reach it. */
  async #tracked<T>(record: SessionRecord, fn: (record: SessionRecord, control: PauseCheckpoint) => Promise<T>): Promise<T> {
    const running: RunningCall = { phase: 'running', pauses: [], resumes: [] };
    this.#running.set(record.id, running);
    const control: PauseCheckpoint = {
      checkpoint: async (snapshot) => {
        if (running.closed !== undefined) throw running.closed;
        if (running.phase !== 'pause-requested') return;
        running.phase = 'parking';
        let paused: SessionRecord;
        try {
          const loaded = await this.#load(record.id, record.owner);
          paused = await this.#update(loaded, { status: 'paused', execution: snapshot() as unknown as JsonObject }, 'paused');
        } catch (err) {
          running.phase = 'running';
          for (const w of [...running.pauses.splice(0), ...running.resumes.splice(0)]) w.reject(err);
          throw err;
        }
        for (const w of running.pauses.splice(0)) w.resolve(paused);
        if (running.closed !== undefined) throw running.closed;
        const resumes = running.resumes.splice(0);
        if (resumes.length > 0) {
          // Resumed while parking: the record says paused now, so resume it and go on.
          running.phase = 'running';
          const loaded = await this.#load(record.id, record.owner);
          const resumed = await this.#update(loaded, resumePatch(loaded.record, this.now()), 'resumed');
          for (const w of resumes) w.resolve(resumed);
          return;
        }
        running.phase = 'parked';
        await new Promise<void>((resolve, reject) => {
          running.parked = { resolve, reject };
        });
      },
    };
    try {
      return await fn(record, control);
    } finally {
      this.#running.delete(record.id);
      if (running.phase === 'pause-requested') {
        // The call ended before another model call: pause between calls, still inside the queue.
        try {
          const loaded = await this.#load(record.id, record.owner);
          const paused = isEnded(loaded.record.status) ? loaded.record : await this.#update(loaded, { status: 'paused' }, 'paused');
          for (const w of running.pauses.splice(0)) w.resolve(paused);
        } catch (err) {
          for (const w of running.pauses.splice(0)) w.reject(err);
        }
      }
    }
  }

  async #ids(): Promise<string[]> {
    const heads = await this.store.streams();
    return heads
      .filter((h) => h.stream.startsWith(SESSION_META_PREFIX))
      .map((h) => h.stream.slice(SESSION_META_PREFIX.length));
  }

  async #read(id: string): Promise<SessionRecord | undefined> {
    const state = await this.store.state(sessionMetaStream(id));
    return typeof state.id === 'string' ? (state as unknown as SessionRecord) : undefined;
  }

  async #load(id: string, owner: string): Promise<Loaded> {
    if (!SESSION_ID_PATTERN.test(id)) {
      throw new StateflowError('SESSION_NOT_FOUND', `Session "${id}" not found`, { session: id });
    }
    const meta = sessionMetaStream(id);
    const view = await this.store.view([meta]);
    const entry = view.streams[meta];
    const record = entry?.state as unknown as SessionRecord | undefined;
    if (entry === undefined || record?.id !== id || record.owner !== owner) {
      throw new StateflowError('SESSION_NOT_FOUND', `Session "${id}" not found`, { session: id });
    }
    return { record, rev: entry.rev };
  }

  /** True when expiry or retention deletion is due for the record at the current time. */
  #due(record: SessionRecord): boolean {
    const now = this.now().getTime();
    if (!isEnded(record.status)) return now >= Date.parse(record.lastUsedAt) + this.idleMs;
    return record.purgedAt === undefined && now >= endedAt(record) + this.retentionMs;
  }

  /** Apply expiry and retention that are due; must run inside the session's queue. */
  async #refresh(loaded: Loaded): Promise<Loaded> {
    let current = loaded;
    const now = this.now().getTime();
    const { record } = current;
    if (!isEnded(record.status) && now >= Date.parse(record.lastUsedAt) + this.idleMs) {
      const expiredAt = new Date(Date.parse(record.lastUsedAt) + this.idleMs).toISOString();
      const next = await this.#update(current, { status: 'expired', expiredAt }, 'expired', record.owner);
      current = { record: next, rev: current.rev + 1 };
    }
    if (this.#due(current.record)) current = await this.#purge(current);
    return current;
  }

  /**
   * Delete the session's slates and agent state (one transition, guarded by their heads), then
   * compact their history away. A write to them between the read and the publication (the state
   * API queues outside the session's queue) makes the publication conflict: the states are read
   * again, up to {@link PURGE_ATTEMPTS} times.
   * @throws CONFLICT when every attempt conflicted.
   */
  async #purge(loaded: Loaded): Promise<Loaded> {
    const { record } = loaded;
    const targets = [sessionSlateStream(record.ladder, record.id), agentSessionStream(record.id)];
    const meta = sessionMetaStream(record.id);
    for (let attempt = 1; ; attempt++) {
      const changes: Record<string, JsonObject> = { [meta]: { purgedAt: this.now().toISOString() } };
      const expected: Record<string, number> = { [meta]: loaded.rev };
      const view = await this.store.view(targets);
      const toCompact: string[] = [];
      for (const stream of targets) {
        const current = view.streams[stream];
        if (current === undefined || current.rev === 0) continue;
        toCompact.push(stream);
        expected[stream] = current.rev;
        const keys = Object.keys(current.state);
        if (keys.length > 0) changes[stream] = Object.fromEntries(keys.map((k) => [k, null])) as unknown as JsonObject;
      }
      try {
        await this.store.publish({ changes, expected, meta: eventMeta('purged', record.owner) });
      } catch (err) {
        if (isStateflowError(err, 'CONFLICT') && err.details.stream !== meta && attempt < PURGE_ATTEMPTS) continue;
        throw err;
      }
      for (const stream of toCompact) await this.store.compact(stream, { keepRevisions: 1 });
      return this.#load(record.id, record.owner);
    }
  }

  async #update(loaded: Loaded, patch: JsonObject, event: string, user?: string): Promise<SessionRecord> {
    const meta = sessionMetaStream(loaded.record.id);
    await this.store.publish({
      changes: { [meta]: patch },
      expected: { [meta]: loaded.rev },
      meta: eventMeta(event, user ?? loaded.record.owner),
    });
    const next = { ...loaded.record, ...(patch as Partial<SessionRecord>) };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete (next as Record<string, unknown>)[key];
    }
    return next;
  }
}

function eventMeta(event: string, user: string): JsonObject {
  return { kind: 'session', event, user };
}

function endedAt(record: SessionRecord): number {
  return Date.parse(record.closedAt ?? record.expiredAt ?? record.lastUsedAt);
}

function resumePatch(record: SessionRecord, now: Date): JsonObject {
  const patch: JsonObject = { status: 'active', lastUsedAt: now.toISOString() };
  if (record.execution !== undefined) patch.execution = null as unknown as JsonObject;
  return patch;
}

function assertNotEnded(record: SessionRecord): void {
  if (isEnded(record.status)) {
    const verb = record.status === 'closed' ? 'was closed' : 'expired after being idle';
    throw new StateflowError(
      'SESSION_CLOSED',
      `Session "${record.id}" ${verb}; it can be read during retention but not called. Create a new session.`,
      { session: record.id, status: record.status },
    );
  }
}

function assertCallable(record: SessionRecord): void {
  assertNotEnded(record);
  if (record.status === 'paused') {
    throw new StateflowError(
      'SESSION_PAUSED',
      `Session "${record.id}" is paused; resume it (POST …/sessions/${record.id}/resume) before calling it.`,
      { session: record.id },
    );
  }
}
