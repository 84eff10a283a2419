/**
 * Pause, resume and close of a session (seeds/ladr-stateful-sessions.txt "Paused (optional) ...
 * the session can be resumed from where it left off"; "closed"), with the control flow each
 * needs around a call in flight: a call of this process is reached through its parking
 * (`paused-calls.ts`); a call parked in another server holds the session's lock while it
 * waits, so a resume or close acts on the record it watches instead of waiting for the lock.
 */
import { isStateflowError } from '@stateflow/core';
import { assertNotEnded, isEnded, sessionMetaStream } from './session-record.js';
import type { SessionRecord } from './session-record.js';
import { resumePatch } from './session-records.js';
import type { LoadedSession, SessionRecords } from './session-records.js';
import type { PausableCalls } from './paused-calls.js';
import type { ExecutionState, PauseCheckpoint } from './session-execution.js';
import type { SessionLocks } from './session-locks.js';

/** What pausing shares with the session manager. */
export interface PausingContext {
  readonly records: SessionRecords;
  readonly calls: PausableCalls;
  readonly locks: SessionLocks;
  now(): Date;
  /** Apply the expiry and retention that are due; inside the session's lock. */
  refresh(loaded: LoadedSession): Promise<LoadedSession>;
}

/** Result of {@link SessionPausing.resume}. */
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

/** Runs a recorded call again after a restart (see {@link SessionPausing.resume}). */
export type Proceed<T> = (record: SessionRecord, execution: ExecutionState, control: PauseCheckpoint) => Promise<T>;

/** Pause, resume and close of the sessions of one manager. */
export class SessionPausing {
  readonly #ctx: PausingContext;
  /** Resume and close requests waiting for a call of another process to park or end. */
  readonly #waitingElsewhere = { resume: 0, close: 0 };

  constructor(context: PausingContext) {
    this.#ctx = context;
  }

  /** Resume and close requests of this process waiting on a call of another process. */
  waitingElsewhere(): { resume: number; close: number } {
    return { ...this.#waitingElsewhere };
  }

  /** See `SessionManager.pause`. */
  async pause(id: string, owner: string): Promise<SessionRecord> {
    const { records, calls, locks } = this.#ctx;
    const loaded = await records.load(id, owner);
    assertNotEnded(loaded.record);
    const inFlight = calls.pause(loaded);
    if (inFlight !== undefined) return inFlight;
    return locks.serial(sessionMetaStream(id), async () => {
      const current = await this.#ctx.refresh(await records.load(id, owner));
      assertNotEnded(current.record);
      if (current.record.status === 'paused') return current.record;
      return (await records.update(current, { status: 'paused' }, 'paused')).record;
    });
  }

  /** See `SessionManager.resume`. */
  async resume<T>(id: string, owner: string, proceed?: Proceed<T>): Promise<ResumeResult<T>> {
    const { records, calls } = this.#ctx;
    const inFlight = calls.resume(await records.load(id, owner));
    if (inFlight !== undefined) return { record: await inFlight, execution: undefined };
    const locked = async (): Promise<ResumeResult<T>> => {
      const current = await this.#ctx.refresh(await records.load(id, owner));
      assertNotEnded(current.record);
      if (current.record.status !== 'paused') return { record: current.record, execution: undefined };
      const { execution } = current.record;
      const { record } = await records.update(current, resumePatch(current.record, this.#ctx.now()), 'resumed');
      if (execution === undefined || proceed === undefined) return { record, execution };
      const continued = await calls.run(record, (r, control) => proceed(r, execution, control));
      return { record, execution, continued };
    };
    const outcome = await this.#unlessParkedElsewhere(id, owner, 'resume', locked);
    if (outcome.ran) return outcome.value;
    const { parked } = outcome;
    return { record: (await records.update(parked, resumePatch(parked.record, this.#ctx.now()), 'resumed')).record, execution: undefined };
  }

  /** See `SessionManager.close`. */
  async close(id: string, owner: string): Promise<SessionRecord> {
    const { records, calls } = this.#ctx;
    await records.load(id, owner); // unknown or foreign: SESSION_NOT_FOUND before touching anything
    calls.interrupt(id);
    const closedPatch = () => ({ status: 'closed', closedAt: this.#ctx.now().toISOString() });
    const locked = async (): Promise<SessionRecord> => {
      const current = await this.#ctx.refresh(await records.load(id, owner));
      if (isEnded(current.record.status)) return current.record;
      const closed = await records.update(current, closedPatch(), 'closed');
      try {
        return (await this.#ctx.refresh(closed)).record;
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
    return (await records.update(outcome.parked, closedPatch(), 'closed')).record;
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
    const { records, calls, locks } = this.#ctx;
    const key = sessionMetaStream(id);
    let waiting = false;
    try {
      for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
        if (calls.isRunning(id)) return { ran: true, value: await locks.serial(key, locked) };
        const loaded = await records.load(id, owner);
        const attempt = await locks.ifFree(key, locked, { local: 'wait' });
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
}
