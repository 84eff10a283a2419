/**
 * Parking of paused calls (seeds/ladr-stateful-sessions.txt "Paused (optional). A session can
 * be paused mid-execution via the debug API ... the session can be resumed from where it left
 * off").
 *
 * A call in flight holds its session's lock. A pause cannot wait for that lock (it would wait
 * for the call to end), so it is handed to the call itself: the call records its execution
 * state at its next model call and parks there until a resume or close reaches it. Every request
 * that meets a call in a pause is answered from here, never queued behind the call, since a
 * request queued behind a parked call would wait forever.
 *
 * A parked call also watches its session's record: a resume or close made by another server
 * (which cannot reach this process's memory, and does not wait for the lock the parked call
 * holds) is a transition of the record, and the call continues or fails closed when it sees it.
 */
import { StateflowError } from '@stateflow/core';
import { assertNotEnded, isEnded, sessionMetaStream } from './session-record.js';
import type { SessionRecord } from './session-record.js';
import { resumePatch } from './session-records.js';
import type { LoadedSession, SessionRecords } from './session-records.js';
import type { PauseCheckpoint } from './session-execution.js';

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

/**
 * A call in flight and where it is in a pause: `running`; `pause-requested` (a pause waits for
 * the call's next model call); `parking` (the call is recording its execution state); `parked`
 * (it waits for a resume).
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

/** The calls in flight of one process's sessions, and the pauses that reach them. */
export class PausableCalls {
  readonly #records: SessionRecords;
  readonly #clock: () => Date;
  readonly #running = new Map<string, RunningCall>();

  constructor(records: SessionRecords, clock: () => Date) {
    this.#records = records;
    this.#clock = clock;
  }

  /** True when the session has a call in flight in this process (in any phase). */
  isRunning(id: string): boolean {
    return this.#running.has(id);
  }

  /**
   * Requests waiting on a call in flight of this process: pauses the call has not reached yet
   * (it parks at its next model call), and resumes of a call that is parking.
   */
  waiting(): { pause: number; resume: number } {
    let pause = 0;
    let resume = 0;
    for (const running of this.#running.values()) {
      pause += running.pauses.length;
      resume += running.resumes.length;
    }
    return { pause, resume };
  }

  /** True when the session's call in flight is parked by a pause. */
  isParked(id: string): boolean {
    return this.#running.get(id)?.phase === 'parked';
  }

  /**
   * Run `fn` as the session's call in flight (inside its queue), so {@link pause} can reach it
   * through the {@link PauseCheckpoint} `fn` receives. A pause requested of a call that ends
   * before another model call pauses the session between calls.
   */
  async run<T>(record: SessionRecord, fn: (record: SessionRecord, control: PauseCheckpoint) => Promise<T>): Promise<T> {
    const running: RunningCall = { phase: 'running', pauses: [], resumes: [] };
    this.#running.set(record.id, running);
    const control: PauseCheckpoint = { checkpoint: (snapshot) => this.#checkpoint(record, running, snapshot) };
    try {
      return await fn(record, control);
    } finally {
      this.#running.delete(record.id);
      if (running.phase === 'pause-requested') {
        try {
          const loaded = await this.#records.load(record.id, record.owner);
          const paused = isEnded(loaded.record.status) ? loaded.record : (await this.#records.update(loaded, { status: 'paused' }, 'paused')).record;
          for (const w of running.pauses.splice(0)) w.resolve(paused);
        } catch (err) {
          for (const w of running.pauses.splice(0)) w.reject(err);
        }
      }
    }
  }

  /**
   * Pause the session's call in flight: resolves with the paused record once the call has
   * parked (at once when it already is), or once the session is paused between calls if the
   * call ends first. `undefined` when no call is in flight.
   */
  pause(loaded: LoadedSession): Promise<SessionRecord> | undefined {
    const running = this.#running.get(loaded.record.id);
    if (running === undefined) return undefined;
    if (running.phase === 'parked') return Promise.resolve(loaded.record);
    if (running.phase === 'running') running.phase = 'pause-requested';
    return new Promise<SessionRecord>((resolve, reject) => running.pauses.push({ resolve, reject }));
  }

  /**
   * Resume the session's call in flight: a parked call continues (the record says active
   * again); a pause not yet reached is cancelled (its requests answer with the session as it
   * stays); a call that is parking is resumed as soon as its pause is recorded. `undefined` when
   * no call is in flight.
   * @throws SESSION_CLOSED when a pause not yet reached meets an ended record.
   */
  resume(loaded: LoadedSession): Promise<SessionRecord> | undefined {
    const running = this.#running.get(loaded.record.id);
    if (running === undefined || running.phase === 'running') return undefined;
    if (running.phase === 'parked') {
      return (async () => {
        const { record } = await this.#records.update(loaded, resumePatch(loaded.record, this.#clock()), 'resumed');
        const parked = running.parked;
        running.phase = 'running';
        running.parked = undefined;
        parked?.resolve();
        return record;
      })();
    }
    if (running.phase === 'pause-requested') {
      assertNotEnded(loaded.record);
      running.phase = 'running';
      for (const w of running.pauses.splice(0)) w.resolve(loaded.record);
      return Promise.resolve(loaded.record);
    }
    return new Promise<SessionRecord>((resolve, reject) => running.resumes.push({ resolve, reject }));
  }

  /**
   * A close met the session: a call in a pause must end (it holds the queue the close waits
   * in) and fails with SESSION_CLOSED, as do the pause and resume requests waiting on it. It
   * wrote nothing, since a call publishes only at its end. A call that is simply running is
   * left to finish.
   */
  interrupt(id: string): void {
    const running = this.#running.get(id);
    if (running === undefined || running.phase === 'running') return;
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

  /**
   * Release every parked call with SESSION_PAUSED; their execution state stays in the store,
   * so a resume after a restart continues them.
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

  /** The call's {@link PauseCheckpoint}: park here when a pause was requested. */
  async #checkpoint(record: SessionRecord, running: RunningCall, snapshot: Parameters<PauseCheckpoint['checkpoint']>[0]): Promise<void> {
    if (running.closed !== undefined) throw running.closed;
    if (running.phase !== 'pause-requested') return;
    running.phase = 'parking';
    let paused: SessionRecord;
    try {
      const loaded = await this.#records.load(record.id, record.owner);
      paused = (await this.#records.update(loaded, { status: 'paused', execution: snapshot() }, 'paused')).record;
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
      const loaded = await this.#records.load(record.id, record.owner);
      const { record: resumed } = await this.#records.update(loaded, resumePatch(loaded.record, this.#clock()), 'resumed');
      for (const w of resumes) w.resolve(resumed);
      return;
    }
    running.phase = 'parked';
    const watching = new AbortController();
    try {
      await new Promise<void>((resolve, reject) => {
        running.parked = { resolve, reject };
        void this.#followRecord(record, running, watching.signal);
      });
    } finally {
      watching.abort();
    }
  }

  /**
   * While `running` is parked, follow the session's record: once it is no longer paused (a
   * resume or close made elsewhere), continue the call, or fail it with SESSION_CLOSED. Reads
   * the record first and then every transition of its stream after that read, so none is missed.
   */
  async #followRecord(record: SessionRecord, running: RunningCall, signal: AbortSignal): Promise<void> {
    const store = this.#records.store;
    try {
      const from = store.lastSeq();
      const changes = store.watch({ from, streams: [sessionMetaStream(record.id)], signal })[Symbol.asyncIterator]();
      for (;;) {
        const current = await this.#records.read(record.id);
        if (running.phase !== 'parked') return;
        if (current !== undefined && current.status !== 'paused') {
          const parked = running.parked;
          running.parked = undefined;
          running.phase = 'running';
          if (!isEnded(current.status)) parked?.resolve();
          else parked?.reject(new StateflowError('SESSION_CLOSED', `Session "${record.id}" was ${current.status} while paused; the paused call wrote nothing`, { session: record.id, status: current.status }));
          return;
        }
        if ((await changes.next()).done === true) return;
      }
    } catch {
      // The store closed or failed: a shutdown releases the parked call, or a resume here does.
    }
  }
}
