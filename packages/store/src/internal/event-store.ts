/**
 * The event store (DESIGN.md "Store model"; README "Storage layout"): this module owns opening a
 * store over storage (the format record, then the {@link StoreContext}) and the `Store` class,
 * whose public methods check their arguments, take the right lock where the work is its own, and
 * delegate: publication (`publication.ts`), history reads (`history.ts`), fork and revert
 * (`fork-revert.ts`), merge (`merge.ts`), verbatim import (`import-transition.ts`), compaction and retention
 * (`compaction.ts`), audit (`audit.ts`) and watch (`watch.ts`). Those modules share the store's
 * state through the context, never through this class.
 */
import { StateflowError, describeInput, diff, isJsonObject, overlay } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep } from '@stateflow/core';
import type {
  AuditReport,
  PublishInput,
  PublishResult,
  StoreOptions,
  StoreView,
  StoreNotice,
  StreamHead,
  StreamId,
  ShapeReadOptions,
  Transition,
  TransitionOutline,
  WatchOptions,
  ForkOptions,
  MergeInput,
  MergeResult,
  Store,
  UndoInput,
  UndoResult,
  PublishManyOptions,
} from '../types.js';
import { runAudit } from './audit.js';
import { shaped, stateAtShape, transitionsInShape } from '../shapes.js';
import { catchUp } from './catch-up.js';
import { decodeValue } from './codec.js';
import { applyRetention, compactStream } from './compaction.js';
import { forkStream, revertStream } from './fork-revert.js';
import { mergeStreams } from './merge.js';
import { checkMergeInput } from './merge-input.js';
import { undoWriter } from './undo.js';
import { checkUndoInput } from './undo-input.js';
import { noteSavepoint } from './savepoints.js';
import { currentOf } from './current-state.js';
import { logRecord, prunedError, revAtSeq, transitionsIn } from './log-reads.js';
import { retainedOutlines } from './log-outline.js';
import { patchAt, revisionSeq } from './replay.js';
import { stateAt, valueAt } from './state-at.js';
import { appendTransitions } from './import-transition.js';
import { formatKey } from './keys.js';
import { enqueue } from './publication.js';
import { FORMAT, corrupt, encodeRecord } from './records.js';
import { MIGRATES_FROM, migrateToCurrent } from './format-migration.js';
import { resolveSettings } from './settings.js';
import type { PoolUse, Storage, StorageRepair } from '../storage.js';
import { NamedLocks, type LockAttempt } from '../named-locks.js';
import { storeNotFound } from './store-not-found.js';
import { EMPTY, checkOpen, headOf, loadContext } from './store-context.js';
import type { StoreContext } from './store-context.js';
import {
  checkCount,
  checkExpected,
  checkSettlement,
  checkOptions,
  checkPath,
  checkPublishInput,
  checkStream,
  checkStreams,
  checkedInput,
} from './validate.js';
import { watchTransitions } from './watch.js';
import { observedIteration, observedPublish, observedRead } from './observe.js';
import { readHistory, readHistoryStream, snapshotHistory } from './replica-reads.js';

/** An iterable of nothing. */
async function* empty(): AsyncGenerator<never> {}

/**
 * Open a store over already-opened storage: check (or write) the format record — a version-1
 * store is migrated in place first (`format-migration.ts`) — then load heads and the chain tip.
 * Closes the storage when it fails. With `open.create` false, storage without a format record
 * and without data is not made a store.
 * @throws NOT_FOUND (no format record, `create` false), STORE_VERSION, STORE_CORRUPT (format record, or a
 *   version-1 record that does not verify during migration), STORE_IO
 */
export async function openEventStore(storage: Storage, options?: StoreOptions, open: { create: boolean } = { create: true }): Promise<Store> {
  try {
    const s = resolveSettings(options);
    await checkFormat(storage, open);
    return new EventStore(await loadContext(storage, s));
  } catch (err) {
    await storage.close().catch(() => undefined);
    throw err;
  }
}

async function checkFormat(storage: Storage, open: { create: boolean }): Promise<void> {
  const { create } = open;
  const key = formatKey();
  let bytes = await storage.get(key);
  if (bytes === undefined && (await holdsData(storage))) {
    // Another process sharing the storage may have created the store between the two reads: its
    // format record is then the data found.
    bytes = await storage.get(key);
    if (bytes === undefined) {
      throw new StateflowError(
        'STORE_VERSION',
        `${storage.location ?? 'The database'} holds data but no Stateflow format record; refusing to use it`,
        { found: null, supported: FORMAT.version },
      );
    }
  }
  if (bytes === undefined) {
    if (!create) throw storeNotFound(storage.location ?? '(memory)', 'an empty LevelDB database without a Stateflow format record');
    const session = await storage.beginWrite();
    // A read that fails inside the session must end it too: on PostgreSQL an open session is a
    // transaction holding the store's lock, which every other writer would wait for.
    let ended = false;
    try {
      // Another process sharing the storage may have created the store meanwhile: same record.
      if ((await storage.get(key)) === undefined) {
        ended = true;
        await session.commit([{ type: 'put', key, value: encodeRecord(FORMAT) }], { sync: true });
      }
    } finally {
      if (!ended) await session.abort();
    }
    return;
  }
  let found: unknown;
  try {
    found = decodeValue(bytes);
  } catch (err) {
    throw corrupt(key, 'format record does not decode', undefined, err);
  }
  const version = isJsonObject(found) ? found.version : undefined;
  if (isJsonObject(found) && found.format === FORMAT.format && typeof version === 'number' && MIGRATES_FROM.includes(version)) {
    await migrateToCurrent(storage);
    return;
  }
  if (!isJsonObject(found) || found.format !== FORMAT.format || version !== FORMAT.version) {
    throw new StateflowError(
      'STORE_VERSION',
      `Store format ${JSON.stringify(found)} is not supported by this version of Stateflow (supports version ${FORMAT.version}); nothing was changed`,
      { found: version ?? found, supported: FORMAT.version },
    );
  }
}

/** Whether the storage holds any record at all. */
async function holdsData(storage: Storage): Promise<boolean> {
  for await (const entry of storage.iterate({ limit: 1 })) {
    void entry;
    return true;
  }
  return false;
}

class EventStore implements Store {
  readonly location: string | null;
  readonly notices: readonly StoreNotice[];
  readonly #ctx: StoreContext;
  readonly #locks: NamedLocks;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
    this.location = ctx.storage.location;
    this.notices = Object.freeze((ctx.storage.repairs ?? []).map((repair) => lostNotice(repair, ctx.lastSeq)));
    this.#locks = new NamedLocks(ctx.storage.lock?.bind(ctx.storage));
  }

  // ---------------------------------------------------------------- reads

  connections(): readonly PoolUse[] {
    return this.#ctx.storage.connections?.() ?? [];
  }

  lastSeq(): number {
    return this.#ctx.lastSeq;
  }

  async head(stream: StreamId): Promise<StreamHead> {
    checkOpen(this.#ctx);
    if (!this.#ctx.storage.capabilities.soleWriter) await catchUp(this.#ctx);
    checkStream(stream);
    const h = headOf(this.#ctx, stream);
    return { stream, rev: h.rev, seq: h.seq, origin: h.origin };
  }

  async streams(): Promise<StreamHead[]> {
    checkOpen(this.#ctx);
    if (!this.#ctx.storage.capabilities.soleWriter) await catchUp(this.#ctx);
    return [...this.#ctx.heads]
      .filter(([, h]) => h.rev > 0)
      .map(([stream, h]) => ({ stream, rev: h.rev, seq: h.seq, origin: h.origin }))
      .sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  }

  // state and view are not async themselves: unobserved, their promise is the one of the read.
  state(stream: StreamId): Promise<JsonObject> {
    return observedRead(this.#ctx.settings.observer, 'state', () => this.#state(stream));
  }

  async #state(stream: StreamId): Promise<JsonObject> {
    checkOpen(this.#ctx);
    if (!this.#ctx.storage.capabilities.soleWriter) await catchUp(this.#ctx);
    checkStream(stream);
    return currentOf(this.#ctx, stream);
  }

  view(streams: StreamId[]): Promise<StoreView> {
    return observedRead(this.#ctx.settings.observer, 'state', () => this.#view(streams));
  }

  async #view(streams: StreamId[]): Promise<StoreView> {
    checkOpen(this.#ctx);
    if (!this.#ctx.storage.capabilities.soleWriter) await catchUp(this.#ctx);
    checkStreams(streams);
    for (const s of streams) await currentOf(this.#ctx, s);
    // Every stream is loaded now; read them all without yielding so the view is one moment.
    const view: StoreView = { seq: this.#ctx.lastSeq, streams: {} };
    for (const s of streams) {
      view.streams[s] = { rev: headOf(this.#ctx, s).rev, state: this.#ctx.current.get(s)?.state() ?? EMPTY };
    }
    return view;
  }

  async stateAt(stream: StreamId, rev: number, options?: ShapeReadOptions): Promise<JsonObject> {
    if (shaped(options)) return stateAtShape(this, stream, rev, options.shape);
    checkOpen(this.#ctx);
    checkStream(stream);
    checkCount(rev, 'rev');
    return observedRead(this.#ctx.settings.observer, 'stateAt', () => readHistory(this.#ctx, () => this.#knownRev(stream, rev), (reader) => stateAt(this.#ctx, stream, rev, reader)));
  }

  async valueAt(stream: StreamId, rev: number, path: readonly PatchPathStep[]): Promise<JsonValue | undefined> {
    checkOpen(this.#ctx);
    checkStream(stream);
    checkCount(rev, 'rev');
    const steps = checkedInput('path', () => checkPath(path));
    return observedRead(this.#ctx.settings.observer, 'stateAt', () => readHistory(this.#ctx, () => this.#knownRev(stream, rev), (reader) => valueAt(this.#ctx, stream, rev, steps, reader)));
  }

  async patchAt(stream: StreamId, rev: number): Promise<JsonObject> {
    checkOpen(this.#ctx);
    checkStream(stream);
    checkCount(rev, 'rev');
    return readHistory(this.#ctx, () => this.#knownRev(stream, rev), (reader) => patchAt(this.#ctx, stream, rev, reader));
  }

  async revisionSeq(stream: StreamId, rev: number): Promise<number> {
    checkOpen(this.#ctx);
    checkStream(stream);
    checkCount(rev, 'rev');
    return readHistory(this.#ctx, () => this.#knownRev(stream, rev), (reader) => revisionSeq(this.#ctx, stream, rev, reader));
  }

  async statesAt(streams: StreamId[], seq: number): Promise<Record<StreamId, JsonObject>> {
    checkOpen(this.#ctx);
    checkStreams(streams);
    checkCount(seq, 'seq');
    // A seq beyond what memory knows: caught up first, it must exist.
    await readHistory(this.#ctx, () => this.#knownSeq(seq), async () => this.#checkSeq(seq));
    const out: Record<StreamId, JsonObject> = {};
    for (const stream of streams) {
      const rev = await readHistory(this.#ctx, () => seq, (reader) => this.#ctx.lock.read(() => revAtSeq(this.#ctx, stream, seq, reader)));
      Object.defineProperty(out, stream, { value: await this.stateAt(stream, rev), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  async effectiveAt(streams: StreamId[], seq: number): Promise<JsonObject> {
    const states = await this.statesAt(streams, seq);
    return overlay(...streams.map((s) => states[s]));
  }

  async transition(seq: number): Promise<Transition> {
    checkOpen(this.#ctx);
    checkCount(seq, 'seq');
    const record = await readHistory(this.#ctx, () => this.#knownSeq(seq), (reader) => {
      this.#checkSeq(seq);
      if (seq === 0) throw new StateflowError('TRANSITION_NOT_FOUND', 'There is no transition 0 (seqs start at 1)', { seq, lastSeq: this.#ctx.lastSeq });
      return logRecord(this.#ctx, seq, undefined, reader);
    });
    if (record.pruned) throw prunedError(this.#ctx, record);
    return record;
  }

  async *transitions(range: { from?: number; to?: number; stream?: StreamId } & ShapeReadOptions = {}): AsyncIterable<Transition> {
    checkOpen(this.#ctx);
    checkOptions(range, 'range');
    if (shaped(range)) {
      yield* transitionsInShape(this, { from: range.from, to: range.to, stream: range.stream }, range.shape);
      return;
    }
    const from = range.from === undefined ? 1 : range.from;
    checkCount(from, 'from');
    if (range.to !== undefined) checkCount(range.to, 'to');
    if (range.stream !== undefined) checkStream(range.stream);
    // An open range reads up to the storage's last seq, which memory knows only once caught up.
    const need = (caughtUp: boolean): number | null => (range.to !== undefined ? this.#knownSeq(range.to) : caughtUp ? this.#ctx.lastSeq : null);
    const start = performance.now();
    let outcome: 'ok' | 'error' = 'ok';
    try {
      yield* readHistoryStream(this.#ctx, from, need, (reader, first) => {
        // Clamped: nothing exists beyond the last seq, and keys hold seqs below 2^48 only.
        const to = Math.min(range.to === undefined ? this.#ctx.lastSeq : range.to, this.#ctx.lastSeq);
        return first > to ? empty() : transitionsIn(this.#ctx, first, to, range.stream, reader);
      });
    } catch (err) {
      outcome = 'error';
      throw err;
    } finally {
      // A caller that stops early (break) ends the iteration without an error: that is a read too.
      observedIteration(this.#ctx.settings.observer, start, outcome);
    }
  }

  async *transitionOutlines(range: { from: number; to: number }): AsyncIterable<TransitionOutline> {
    checkOpen(this.#ctx);
    checkCount(range.from, 'from');
    checkCount(range.to, 'to');
    yield* readHistoryStream(this.#ctx, range.from, () => this.#knownSeq(range.to), (reader, first) => {
      const to = Math.min(range.to, this.#ctx.lastSeq);
      return first > to ? empty() : retainedOutlines(first, to, reader);
    });
  }

  async diff(stream: StreamId, revA: number, revB: number, options?: ShapeReadOptions): Promise<JsonObject> {
    const [a, b] = [await this.stateAt(stream, revA, options), await this.stateAt(stream, revB, options)];
    return diff(a, b);
  }

  // ---------------------------------------------------------------- writes

  async publish(input: PublishInput): Promise<PublishResult> {
    checkOpen(this.#ctx);
    const checked = checkedInput('publish input', () => checkPublishInput(input));
    const [result] = await observedPublish(this.#ctx.settings.observer, checked.durability ?? this.#ctx.settings.durability, 1, () => enqueue(this.#ctx, [checked]));
    if (result?.status === 'accepted') await this.#afterAccepted(result.transition);
    return result as PublishResult;
  }

  async publishMany(inputs: PublishInput[], options: PublishManyOptions = {}): Promise<PublishResult[]> {
    checkOpen(this.#ctx);
    checkOptions(options, 'options');
    const { budgetMs } = checkedInput('publishMany options', () => ({ ...options }));
    if (budgetMs !== undefined) checkCount(budgetMs, 'budgetMs');
    if (!Array.isArray(inputs) || inputs.length === 0) {
      throw new StateflowError('INPUT_INVALID', `publishMany needs a non-empty array of publish inputs, got ${describeInput(inputs)}`, { field: 'inputs' });
    }
    const checked = inputs.map((input, i) => checkedInput(`publish input ${i + 1} of ${inputs.length}`, () => checkPublishInput(input)));
    const durability = checked.some((input) => (input.durability ?? this.#ctx.settings.durability) === 'fsync') ? 'fsync' : 'buffered';
    const results = await observedPublish(this.#ctx.settings.observer, durability, checked.length, () => enqueue(this.#ctx, checked, budgetMs));
    for (const result of results) if (result.status === 'accepted') await this.#afterAccepted(result.transition);
    return results;
  }

  async fork(from: StreamId, to: StreamId, options: ForkOptions = {}): Promise<PublishResult> {
    checkOpen(this.#ctx);
    checkStream(from);
    checkStream(to);
    if (from === to) throw new StateflowError('INPUT_INVALID', `fork needs two different streams, got ${from} twice`, { field: 'to' });
    checkOptions(options, 'options');
    const { at, expected = 'none', id, principal } = checkedInput('fork options', () => ({ ...options }));
    if (at !== undefined) checkCount(at, 'at');
    checkExpected('expected', expected);
    const owned: { id?: string; principal?: string } = {};
    checkSettlement({ id, principal }, owned);
    const result = await forkStream(this.#ctx, from, to, at, expected, owned);
    if (result.status === 'accepted') await applyRetention(this.#ctx, result.transition);
    return result;
  }

  async merge(input: MergeInput): Promise<MergeResult> {
    checkOpen(this.#ctx);
    const result = await mergeStreams(this.#ctx, checkedInput('merge input', () => checkMergeInput(input)));
    if (result.status === 'accepted') await this.#afterAccepted(result.transition);
    return result;
  }

  async undo(input: UndoInput): Promise<UndoResult> {
    checkOpen(this.#ctx);
    const result = await undoWriter(this.#ctx, checkedInput('undo input', () => checkUndoInput(input)));
    if (result.status === 'accepted') await this.#afterAccepted(result.transition);
    return result;
  }

  /** What follows an accepted publication of a caller: retention, then the writer's savepoint. */
  async #afterAccepted(transition: Transition): Promise<void> {
    await applyRetention(this.#ctx, transition);
    await noteSavepoint(this.#ctx, transition);
  }

  async revert(stream: StreamId, toRev: number): Promise<PublishResult> {
    checkOpen(this.#ctx);
    checkStream(stream);
    checkCount(toRev, 'toRev');
    const result = await revertStream(this.#ctx, stream, toRev);
    if (result.status === 'accepted') await applyRetention(this.#ctx, result.transition);
    return result;
  }

  async append(transition: Transition): Promise<void> {
    checkOpen(this.#ctx);
    await appendTransitions(this.#ctx, [transition]);
  }

  async appendMany(transitions: Transition[]): Promise<void> {
    checkOpen(this.#ctx);
    if (!Array.isArray(transitions) || transitions.length === 0) {
      throw new StateflowError('INPUT_INVALID', `appendMany needs a non-empty array of exported transitions, got ${describeInput(transitions)}`, { field: 'transitions' });
    }
    await appendTransitions(this.#ctx, transitions);
  }

  async compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }> {
    checkOpen(this.#ctx);
    checkStream(stream);
    checkOptions(options, 'options');
    const keep = checkedInput('options', () => options?.keepRevisions);
    if (!Number.isSafeInteger(keep) || keep < 1) {
      throw new StateflowError('INPUT_INVALID', `keepRevisions must be an integer ≥ 1, got ${describeInput(keep)}`, { field: 'keepRevisions' });
    }
    return compactStream(this.#ctx, stream, keep);
  }

  async reclaimSpace(): Promise<void> {
    checkOpen(this.#ctx);
    await this.#ctx.storage.reclaim?.();
  }

  async audit(options: { onProgress?: (done: number, total: number) => void } = {}): Promise<AuditReport> {
    checkOpen(this.#ctx);
    checkOptions(options, 'options');
    const onProgress = checkedInput('options', () => options.onProgress);
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      throw new StateflowError('INPUT_INVALID', 'options.onProgress must be a function', { field: 'onProgress' });
    }
    // One snapshot: writers go on meanwhile (their commits are not part of this audit).
    return observedRead(this.#ctx.settings.observer, 'audit', () => snapshotHistory(this.#ctx, (reader) => runAudit(reader, onProgress)));
  }

  watch(options: WatchOptions = {}): AsyncIterable<Transition> {
    checkOpen(this.#ctx);
    checkOptions(options, 'options');
    const from = options.from === undefined ? this.#ctx.lastSeq : options.from;
    checkCount(from, 'from');
    if (options.streams !== undefined) checkStreams(options.streams, 'streams');
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
      throw new StateflowError('INPUT_INVALID', 'options.signal must be an AbortSignal', { field: 'signal' });
    }
    return watchTransitions(this.#ctx, from, options);
  }

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    checkOpen(this.#ctx);
    return this.#locks.run(checkLockName(name), fn);
  }

  withLockIfFree<T>(name: string, fn: () => Promise<T>, options?: { local?: 'decline' | 'wait' }): Promise<LockAttempt<T>> {
    checkOpen(this.#ctx);
    return this.#locks.runIfFree(checkLockName(name), fn, options);
  }

  async close(): Promise<void> {
    if (this.#ctx.closed) return;
    this.#ctx.closed = true;
    this.#ctx.hub.closeAll();
    // Let running writes finish before the storage goes away.
    await this.#ctx.lock.exclusive(async () => undefined);
    await this.#ctx.storage.close();
  }

  /** The stream's head seq when memory knows revision `rev` of it (a read replica may then serve it without a catch-up), else `null`. */
  #knownRev(stream: StreamId, rev: number): number | null {
    const h = this.#ctx.heads.get(stream);
    return h !== undefined && rev <= h.rev ? h.seq : null;
  }

  /** `seq` when memory knows it (at or below its last seq), else `null`. */
  #knownSeq(seq: number): number | null {
    return seq <= this.#ctx.lastSeq ? seq : null;
  }

  /** @throws INPUT_INVALID for a bad seq, TRANSITION_NOT_FOUND beyond the last seq */
  #checkSeq(seq: number): void {
    checkCount(seq, 'seq');
    if (seq > this.#ctx.lastSeq) {
      throw new StateflowError('TRANSITION_NOT_FOUND', `There is no transition ${seq} (the last is ${this.#ctx.lastSeq})`, { seq, lastSeq: this.#ctx.lastSeq });
    }
  }
}

/**
 * The notice of what an open found after an OS crash or power loss: the store opened at
 * `lastSeq`, so buffered transitions from the next seq on are lost (dropped records name them),
 * or may have been (nothing that verifies names them).
 */
function lostNotice(repair: StorageRepair, lastSeq: number): StoreNotice {
  const fromSeq = lastSeq + 1;
  if (repair.kind === 'not-closed-before-reboot') {
    return {
      code: 'BUFFERED_TRANSITIONS_LOST',
      message:
        `The store was not closed before an OS crash or power loss (its last session ran on an earlier boot of the machine, ${repair.boot}) and its files are intact through seq ${lastSeq}: ` +
        `transitions after seq ${lastSeq} acknowledged with buffered durability may have been lost without a trace (a power loss keeps what was synced; every synced one is kept).`,
      details: { fromSeq, throughSeq: null, file: '', offset: 0, keptIn: [] },
    };
  }
  const through = repair.lostThrough !== null && repair.lostThrough >= fromSeq ? repair.lostThrough : null;
  const lost =
    through === null
      ? `no transition in the dropped bytes verifies; transitions after seq ${lastSeq} acknowledged with buffered durability, if there were any, are lost`
      : `transitions ${fromSeq}…${through} (as far as the dropped records show) that were acknowledged with buffered durability are lost`;
  return {
    code: 'BUFFERED_TRANSITIONS_LOST',
    message:
      `The store was not closed before an OS crash or power loss, and its write-ahead log was damaged from byte ${repair.offset} of ${repair.file} (${repair.reason}) with no synced transition after it: ` +
      `${lost} (every synced one is kept). The ${repair.bytes} dropped bytes are kept in ${repair.keptIn.join(', ')}.`,
    details: { fromSeq, throughSeq: through, file: repair.file, offset: repair.offset, keptIn: [...repair.keptIn] },
  };
}

/** @throws INPUT_INVALID unless `name` is a non-empty string */
function checkLockName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new StateflowError('INPUT_INVALID', 'A lock name must be a non-empty string', { field: 'name' });
  return name;
}
