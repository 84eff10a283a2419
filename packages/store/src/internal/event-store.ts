/**
 * The event store implementation (DESIGN.md "Store model"; README "Storage layout").
 *
 * Public methods validate their arguments, take the right lock, then work through the storage
 * seam. In memory it keeps: every stream's head (loaded at open), the current state of each
 * stream once it was first used (checkpoint + tail replay), the last seq and hash, and an LRU of
 * reconstructed historical states. Memory changes only after a batch was written.
 */
import { StateflowError, applyPatch, diff, isJsonObject, isStateflowError, netPatch, overlay, patchSeries, validatePatch } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type {
  AuditReport,
  Durability,
  ExpectedRevision,
  PublishInput,
  PublishResult,
  StoreOptions,
  StoreView,
  StreamChange,
  StreamHead,
  StreamId,
  Transition,
  WatchOptions,
  ForkOptions,
  Store,
} from '../types.js';
import { AccessLock } from './access-lock.js';
import { runAudit } from './audit.js';
import { GENESIS_HASH, stateHash, transitionHash } from './hash.js';
import {
  Family,
  checkpointKey,
  familyRange,
  formatKey,
  headKey,
  idKey,
  logKey,
  logRange,
  parseKey,
  revKey,
  seqKey,
  streamRange,
} from './keys.js';
import { Lru } from './lru.js';
import {
  FORMAT,
  corrupt,
  decodeCheckpoint,
  decodeCount,
  decodeHead,
  decodeLog,
  encodeRecord,
} from './records.js';
import type { HeadRecord, LogRecord, PrunedRecord } from './records.js';
import { storeNotFound, type Storage, type StorageOp } from './storage.js';
import {
  checkCount,
  checkExpected,
  checkId,
  checkOptions,
  checkPublishInput,
  checkStream,
  checkStreams,
  checkedInput,
  describeInput,
  jsonObjectCopy,
  stateProblem,
} from './validate.js';
import { VerifiedRecords } from './verified-records.js';
import { WatchHub } from './watch-hub.js';
import { decodeValue, encodeValue } from './codec.js';

/** `prevHash` of a raw log record, or `undefined` when it does not decode. */
function linkOf(bytes: Uint8Array): unknown {
  try {
    const v = decodeValue(bytes);
    return isJsonObject(v) ? v.prevHash : undefined;
  } catch {
    return undefined;
  }
}

const NOOP: PublishResult = Object.freeze({ status: 'noop', transition: null });
const EMPTY: JsonObject = Object.freeze({}) as JsonObject;
const ZERO_HEAD: HeadRecord = Object.freeze({ rev: 0, seq: 0, origin: 0 });

/** Resolved options with defaults applied. */
interface Settings {
  checkpointInterval: number;
  durability: Durability;
  cacheSize: number;
  retention: { keepRevisions: number } | null;
  clock: () => Date;
}

function settings(options: StoreOptions = {}): Settings {
  checkOptions(options, 'options');
  if (options.clock !== undefined && typeof options.clock !== 'function') {
    throw new StateflowError('INPUT_INVALID', 'clock must be a function returning a Date', { field: 'clock' });
  }
  checkOptions(options.retention, 'retention');
  const k = options.checkpointInterval ?? 64;
  if (!Number.isSafeInteger(k) || k < 1) {
    throw new StateflowError('INPUT_INVALID', `checkpointInterval must be an integer ≥ 1, got ${describeInput(k)}`, { field: 'checkpointInterval' });
  }
  const cacheSize = options.cacheSize ?? 256;
  checkCount(cacheSize, 'cacheSize');
  const durability = options.durability ?? 'buffered';
  if (durability !== 'buffered' && durability !== 'fsync') {
    throw new StateflowError('INPUT_INVALID', `durability must be "buffered" or "fsync"`, { field: 'durability' });
  }
  const keep = options.retention?.keepRevisions;
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 1)) {
    throw new StateflowError('INPUT_INVALID', `retention.keepRevisions must be an integer ≥ 1, got ${describeInput(keep)}`, { field: 'retention.keepRevisions' });
  }
  return {
    checkpointInterval: k,
    durability,
    cacheSize,
    retention: keep === undefined ? null : { keepRevisions: keep },
    clock: checkedClock(options.clock ?? (() => new Date())),
  };
}

/** A clock whose every reading is checked: a transition time must be a valid Date. */
function checkedClock(clock: () => Date): () => Date {
  return () => {
    const now = checkedInput('clock', () => clock());
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new StateflowError('INPUT_INVALID', `the clock option returned ${describeInput(now)}, not a valid Date`, { field: 'clock' });
    }
    return now;
  };
}

/**
 * Accumulated net-patch bytes of a stream since its latest checkpoint, and that checkpoint's
 * size (0 when the base is the empty state). Drives the byte rule of {@link checkpointDue}.
 */
interface CheckpointDebt {
  patchBytes: number;
  checkpointBytes: number;
}

/** A rebuilt state and the checkpoint debt at its revision. */
interface Replay {
  state: JsonObject;
  debt: CheckpointDebt;
}

const NO_DEBT: CheckpointDebt = Object.freeze({ patchBytes: 0, checkpointBytes: 0 });

/**
 * Floor of the byte rule: a checkpoint is written early only once at least this many bytes of
 * encoded net patches accumulated since the stream's latest checkpoint (64 KiB).
 */
export const CHECKPOINT_MIN_PATCH_BYTES = 64 * 1024;

/**
 * Whether revision `rev` gets a checkpoint: every K revisions, or (byte rule) when the encoded
 * net patches since the latest checkpoint, this revision's included, add up to at least that
 * checkpoint's size and at least {@link CHECKPOINT_MIN_PATCH_BYTES}. Replay from a checkpoint
 * then never decodes more patch bytes than about one state, and never more than K−1 patches.
 */
function checkpointDue(rev: number, k: number, debt: CheckpointDebt): boolean {
  return rev % k === 0 || debt.patchBytes >= Math.max(debt.checkpointBytes, CHECKPOINT_MIN_PATCH_BYTES);
}

/** One transition ready to be written, with the resulting state of each stream it changes. */
interface Staged {
  transition: Transition;
  states: Map<StreamId, JsonObject>;
  sync: boolean;
}

/**
 * Transitions staged for one batch (group commit), and memory as it will be once that batch is
 * written: later members of the group are checked against the earlier ones.
 */
interface Group {
  staged: Staged[];
  heads: Map<StreamId, HeadRecord>;
  states: Map<StreamId, JsonObject>;
  ids: Map<string, Transition>;
  lastSeq: number;
  lastHash: string;
}

/** A publish waiting for the next group. */
interface Queued {
  input: PublishInput;
  resolve: (result: PublishResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Open a store over already-opened storage: check (or write) the format record, load heads and
 * the chain tip. Closes the storage when it fails. With `open.create` false, storage without a
 * format record and without data is not made a store.
 * @throws NOT_FOUND (no format record, `create` false), STORE_VERSION, STORE_CORRUPT (format record), STORE_IO
 */
export async function openEventStore(storage: Storage, options?: StoreOptions, open: { create: boolean } = { create: true }): Promise<Store> {
  try {
    const s = settings(options);
    await checkFormat(storage, open.create);
    const store = new EventStore(storage, s);
    await store.load();
    return store;
  } catch (err) {
    await storage.close().catch(() => undefined);
    throw err;
  }
}

async function checkFormat(storage: Storage, create: boolean): Promise<void> {
  const key = formatKey();
  const bytes = await storage.get(key);
  if (bytes === undefined) {
    for await (const entry of storage.iterate({ limit: 1 })) {
      void entry;
      throw new StateflowError(
        'STORE_VERSION',
        `${storage.location ?? 'The database'} holds data but no Stateflow format record; refusing to use it`,
        { found: null, supported: FORMAT.version },
      );
    }
    if (!create) throw storeNotFound(storage.location ?? '(memory)', 'an empty LevelDB database without a Stateflow format record');
    await storage.write([{ type: 'put', key, value: encodeRecord(FORMAT) }], { sync: true });
    return;
  }
  let found: unknown;
  try {
    found = decodeValue(bytes);
  } catch (err) {
    throw corrupt(key, 'format record does not decode', undefined, err);
  }
  const version = isJsonObject(found) ? found.version : undefined;
  if (!isJsonObject(found) || found.format !== FORMAT.format || version !== FORMAT.version) {
    throw new StateflowError(
      'STORE_VERSION',
      `Store format ${JSON.stringify(found)} is not supported by this version of Stateflow (supports version ${FORMAT.version}); nothing was changed`,
      { found: version ?? found, supported: FORMAT.version },
    );
  }
}

class EventStore implements Store {
  readonly location: string | null;
  readonly #storage: Storage;
  readonly #s: Settings;
  readonly #lock = new AccessLock();
  readonly #hub = new WatchHub();
  readonly #heads = new Map<StreamId, HeadRecord>();
  /** Streams whose head record does not decode: every use fails closed with this error. */
  readonly #broken = new Map<StreamId, StateflowError>();
  readonly #current = new Map<StreamId, JsonObject>();
  /** Checkpoint debt of every stream in `#current` (set and updated together with it). */
  readonly #debt = new Map<StreamId, CheckpointDebt>();
  /** Publishes waiting for the next group commit. */
  #queue: Queued[] = [];
  readonly #history: Lru<string, JsonObject>;
  readonly #verified = new VerifiedRecords();
  #lastSeq = 0;
  #lastHash = GENESIS_HASH;
  /** Set when the chain tip does not decode: reads still work, writes fail closed. */
  #tipError: StateflowError | null = null;
  #closed = false;

  constructor(storage: Storage, s: Settings) {
    this.#storage = storage;
    this.#s = s;
    this.location = storage.location;
    this.#history = new Lru(s.cacheSize);
  }

  /** Load heads and the chain tip (never the log). */
  async load(): Promise<void> {
    for await (const [key, value] of this.#storage.iterate(familyRange(Family.head))) {
      const parsed = parseKey(key);
      if (parsed.family !== 'head') continue;
      try {
        this.#heads.set(parsed.stream, decodeHead(key, value, parsed.stream));
      } catch (err) {
        if (!isStateflowError(err, 'STORE_CORRUPT')) throw err;
        this.#broken.set(parsed.stream, err);
      }
    }
    for await (const [key, value] of this.#storage.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
      const parsed = parseKey(key);
      if (parsed.family !== 'log') continue;
      this.#lastSeq = parsed.seq;
      try {
        this.#lastHash = decodeLog(key, value, parsed.seq).hash;
      } catch (err) {
        if (!isStateflowError(err, 'STORE_CORRUPT')) throw err;
        this.#tipError = err;
      }
    }
  }

  // ---------------------------------------------------------------- reads

  lastSeq(): number {
    return this.#lastSeq;
  }

  async head(stream: StreamId): Promise<StreamHead> {
    this.#checkOpen();
    checkStream(stream);
    const h = this.#headOf(stream);
    return { stream, rev: h.rev, seq: h.seq, origin: h.origin };
  }

  async streams(): Promise<StreamHead[]> {
    this.#checkOpen();
    return [...this.#heads]
      .filter(([, h]) => h.rev > 0)
      .map(([stream, h]) => ({ stream, rev: h.rev, seq: h.seq, origin: h.origin }))
      .sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  }

  async state(stream: StreamId): Promise<JsonObject> {
    this.#checkOpen();
    checkStream(stream);
    return this.#currentOf(stream);
  }

  async view(streams: StreamId[]): Promise<StoreView> {
    this.#checkOpen();
    checkStreams(streams);
    for (const s of streams) await this.#currentOf(s);
    // Every stream is loaded now; read them all without yielding so the view is one moment.
    const view: StoreView = { seq: this.#lastSeq, streams: {} };
    for (const s of streams) {
      view.streams[s] = { rev: this.#headOf(s).rev, state: this.#current.get(s) ?? EMPTY };
    }
    return view;
  }

  async stateAt(stream: StreamId, rev: number): Promise<JsonObject> {
    this.#checkOpen();
    checkStream(stream);
    checkCount(rev, 'rev');
    const h = this.#retained(stream, rev);
    if (rev === h.rev) return this.#currentOf(stream);
    const key = `${stream}\u0000${rev}`;
    const cached = this.#history.get(key);
    if (cached !== undefined) return cached;
    const state = await this.#lock.read(() => this.#reconstruct(stream, rev, this.#retained(stream, rev)));
    this.#history.set(key, state);
    return state;
  }

  async patchAt(stream: StreamId, rev: number): Promise<JsonObject> {
    this.#checkOpen();
    checkStream(stream);
    checkCount(rev, 'rev');
    const h = this.#headOf(stream);
    if (rev === 0 || rev > h.rev) {
      throw new StateflowError('REVISION_NOT_FOUND', `Stream ${stream} has no revision ${rev} with a patch (head is ${h.rev})`, { stream, rev, head: h.rev });
    }
    return this.#lock.read(async () => {
      this.#retained(stream, rev - 1);
      const [change] = await this.#changes(stream, rev, rev);
      return (change as StreamChange).patch;
    });
  }

  async statesAt(streams: StreamId[], seq: number): Promise<Record<StreamId, JsonObject>> {
    this.#checkOpen();
    checkStreams(streams);
    this.#checkSeq(seq);
    const out: Record<StreamId, JsonObject> = {};
    for (const stream of streams) {
      const rev = await this.#lock.read(() => this.#revAtSeq(stream, seq));
      Object.defineProperty(out, stream, { value: await this.stateAt(stream, rev), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  async effectiveAt(streams: StreamId[], seq: number): Promise<JsonObject> {
    const states = await this.statesAt(streams, seq);
    return overlay(...streams.map((s) => states[s]));
  }

  async transition(seq: number): Promise<Transition> {
    this.#checkOpen();
    this.#checkSeq(seq);
    if (seq === 0) throw new StateflowError('TRANSITION_NOT_FOUND', 'There is no transition 0 (seqs start at 1)', { seq, lastSeq: this.#lastSeq });
    const record = await this.#logRecord(seq);
    if (record.pruned) throw this.#pruned(record);
    return record;
  }

  async *transitions(range: { from?: number; to?: number; stream?: StreamId } = {}): AsyncIterable<Transition> {
    this.#checkOpen();
    checkOptions(range, 'range');
    const from = range.from === undefined ? 1 : range.from;
    checkCount(from, 'from');
    if (range.to !== undefined) checkCount(range.to, 'to');
    // Clamped: nothing exists beyond the last seq, and keys hold seqs below 2^48 only.
    const to = Math.min(range.to === undefined ? this.#lastSeq : range.to, this.#lastSeq);
    if (from > to) return;
    if (range.stream !== undefined) checkStream(range.stream);
    if (range.stream === undefined) {
      // Every seq up to the last one keeps a log record (compaction leaves pruned stubs), so a
      // gap means a record was lost: fail closed instead of skipping it.
      let expected = Math.max(from, 1);
      for await (const [key, value] of this.#storage.iterate(logRange(expected, to))) {
        const parsed = parseKey(key);
        if (parsed.family !== 'log') continue;
        if (parsed.seq !== expected) throw corrupt(logKey(expected), 'transition is missing from the log');
        expected++;
        const record = decodeLog(key, value, parsed.seq);
        if (!record.pruned) yield record;
      }
      if (expected <= to) throw corrupt(logKey(expected), 'transition is missing from the log');
      return;
    }
    const stream = range.stream;
    for await (const [key] of this.#storage.iterate(streamRange(Family.seq, stream, Math.max(from, 1), to))) {
      const parsed = parseKey(key);
      if (parsed.family !== 'seq') continue;
      const record = await this.#logRecord(parsed.n, stream);
      if (!record.pruned) yield record;
    }
  }

  async diff(stream: StreamId, revA: number, revB: number): Promise<JsonObject> {
    const [a, b] = [await this.stateAt(stream, revA), await this.stateAt(stream, revB)];
    return diff(a, b);
  }

  // ---------------------------------------------------------------- writes

  async publish(input: PublishInput): Promise<PublishResult> {
    this.#checkOpen();
    const checked = checkedInput('publish input', () => checkPublishInput(input));
    const result = await new Promise<PublishResult>((resolve, reject) => {
      this.#queue.push({ input: checked, resolve, reject });
      // The first publish of a group schedules it; later ones join until it starts.
      if (this.#queue.length === 1) void this.#lock.write(() => this.#commitQueued());
    });
    if (result.status === 'accepted') await this.#applyRetention(result.transition);
    return result;
  }

  async fork(from: StreamId, to: StreamId, options: ForkOptions = {}): Promise<PublishResult> {
    this.#checkOpen();
    checkStream(from);
    checkStream(to);
    if (from === to) throw new StateflowError('INPUT_INVALID', `fork needs two different streams, got ${from} twice`, { field: 'to' });
    checkOptions(options, 'options');
    const { at: atOption, expected = 'none', id } = checkedInput('fork options', () => ({ ...options }));
    if (atOption !== undefined) checkCount(atOption, 'at');
    checkExpected('expected', expected);
    if (id !== undefined) checkId(id, 'id');
    const result = await this.#lock.write(async () => {
      const at = atOption ?? this.#headOf(from).rev;
      const source = await this.#stateAtUnlocked(from, at);
      const target = await this.#currentOf(to);
      const patch = diff(target, source);
      if (Object.keys(patch).length === 0) {
        this.#checkExpected({ [to]: expected }, (s) => this.#headOf(s));
        return NOOP;
      }
      const input: PublishInput = { changes: { [to]: patch }, expected: { [to]: expected }, meta: jsonObjectCopy({ fork: { from, rev: at } }, 'meta') };
      if (id !== undefined) input.id = id;
      return this.#commit(input);
    });
    if (result.status === 'accepted') await this.#applyRetention(result.transition);
    return result;
  }

  async revert(stream: StreamId, toRev: number): Promise<PublishResult> {
    this.#checkOpen();
    checkStream(stream);
    checkCount(toRev, 'toRev');
    const result = await this.#lock.write(async () => {
      const h = this.#headOf(stream);
      const target = await this.#stateAtUnlocked(stream, toRev);
      const patch = diff(await this.#currentOf(stream), target);
      if (Object.keys(patch).length === 0) return NOOP;
      return this.#commit({ changes: { [stream]: patch }, expected: { [stream]: h.rev }, meta: jsonObjectCopy({ revert: { stream, rev: toRev } }, 'meta') });
    });
    if (result.status === 'accepted') await this.#applyRetention(result.transition);
    return result;
  }

  async append(transition: Transition): Promise<void> {
    this.#checkOpen();
    await this.#lock.write(async () => {
      this.#checkWritable();
      const group = this.#newGroup();
      // Read the caller's object once, into plain copies, before verifying it.
      const copy = checkedInput('transition', () =>
        isJsonObject(transition)
          ? { ...transition, changes: Array.isArray(transition.changes) ? transition.changes.map((c) => (isJsonObject(c) ? { ...c } : c)) : transition.changes }
          : transition,
      );
      this.#addToGroup(group, await this.#verifyImport(copy));
      await this.#writeGroup(group);
    });
  }

  async compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }> {
    this.#checkOpen();
    checkStream(stream);
    checkOptions(options, 'options');
    const keep = checkedInput('options', () => options?.keepRevisions);
    if (!Number.isSafeInteger(keep) || keep < 1) {
      throw new StateflowError('INPUT_INVALID', `keepRevisions must be an integer ≥ 1, got ${describeInput(keep)}`, { field: 'keepRevisions' });
    }
    return this.#lock.exclusive(async () => {
      const h = this.#headOf(stream);
      return this.#compactTo(stream, Math.max(h.origin, h.rev - keep + 1));
    });
  }

  async audit(options: { onProgress?: (done: number, total: number) => void } = {}): Promise<AuditReport> {
    this.#checkOpen();
    checkOptions(options, 'options');
    const onProgress = checkedInput('options', () => options.onProgress);
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      throw new StateflowError('INPUT_INVALID', 'options.onProgress must be a function', { field: 'onProgress' });
    }
    return this.#lock.write(() => runAudit(this.#storage, onProgress));
  }

  watch(options: WatchOptions = {}): AsyncIterable<Transition> {
    this.#checkOpen();
    checkOptions(options, 'options');
    const from = options.from === undefined ? this.#lastSeq : options.from;
    checkCount(from, 'from');
    if (options.streams !== undefined) checkStreams(options.streams, 'streams');
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
      throw new StateflowError('INPUT_INVALID', 'options.signal must be an AbortSignal', { field: 'signal' });
    }
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    if (options.signal?.aborted) stop.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const generator = this.#watch(from, options.streams ? new Set(options.streams) : null, stop.signal);
    const cleanup = (): void => options.signal?.removeEventListener('abort', onAbort);
    const iterator: AsyncIterableIterator<Transition> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        const r = await generator.next();
        if (r.done === true) cleanup();
        return r;
      },
      return: async (value?: unknown) => {
        stop.abort();
        cleanup();
        await generator.return(undefined);
        return { done: true, value: value as Transition };
      },
    };
    return iterator;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#hub.closeAll();
    // Let running writes finish before the storage goes away.
    await this.#lock.exclusive(async () => undefined);
    await this.#storage.close();
  }

  // ---------------------------------------------------------------- internals: state

  #checkOpen(): void {
    if (this.#closed) throw new StateflowError('STORE_CLOSED', 'The store is closed', {});
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (this.#tipError !== null) throw this.#tipError;
  }

  #checkSeq(seq: number): void {
    checkCount(seq, 'seq');
    if (seq > this.#lastSeq) {
      throw new StateflowError('TRANSITION_NOT_FOUND', `There is no transition ${seq} (the last is ${this.#lastSeq})`, { seq, lastSeq: this.#lastSeq });
    }
  }

  #headOf(stream: StreamId): HeadRecord {
    const broken = this.#broken.get(stream);
    if (broken !== undefined) throw broken;
    return this.#heads.get(stream) ?? ZERO_HEAD;
  }

  /** The head, after checking `rev` is within `[origin, head]`. */
  #retained(stream: StreamId, rev: number): HeadRecord {
    const h = this.#headOf(stream);
    if (rev > h.rev) {
      throw new StateflowError('REVISION_NOT_FOUND', `Stream ${stream} has no revision ${rev} (head is ${h.rev})`, { stream, rev, head: h.rev });
    }
    if (rev < h.origin) {
      throw new StateflowError(
        'HISTORY_NOT_RETAINED',
        `Revision ${rev} of stream ${stream} is before its origin ${h.origin} and no longer retained`,
        { stream, rev, origin: h.origin },
      );
    }
    return h;
  }

  /**
   * Current state, loading it (latest checkpoint + tail) on first use, after cross-checking the
   * head record against the stored log ({@link EventStore.#verifyHead}). `exclusive`: the caller
   * holds the exclusive lock already (taking a read lock then would wait for itself).
   */
  async #currentOf(stream: StreamId, exclusive = false): Promise<JsonObject> {
    const loaded = this.#current.get(stream);
    if (loaded !== undefined) return loaded;
    const h = this.#headOf(stream);
    const load = async (): Promise<Replay | null> => {
      await this.#verifyHead(stream, h);
      return h.rev === 0 ? null : this.#replay(stream, h.rev, h, true);
    };
    let replay: Replay | null;
    try {
      replay = await (exclusive ? load() : this.#lock.read(load));
    } catch (err) {
      // A publish may have moved the head while this load ran: the check was against a stale head.
      if (this.#headOf(stream) !== h) return this.#currentOf(stream, exclusive);
      throw err;
    }
    if (replay === null) return this.#current.get(stream) ?? EMPTY;
    // A publish may have installed a newer state while this load ran; never overwrite it.
    if (!this.#current.has(stream) && this.#heads.get(stream) === h) {
      this.#current.set(stream, replay.state);
      this.#debt.set(stream, replay.debt);
    }
    return this.#current.get(stream) ?? replay.state;
  }

  /**
   * Fail closed when `stream`'s head record disagrees with the log: the latest seq-index entry
   * of the stream (one reverse seek; the seq index survives compaction) must be the head's
   * `seq` → `rev`, and the transition at that seq must hold that revision of the stream (one
   * point read). Marks the stream broken on a mismatch.
   * @throws STORE_CORRUPT naming the head key
   */
  async #verifyHead(stream: StreamId, h: HeadRecord): Promise<void> {
    let latest: { seq: number; rev: number } | null = null;
    for await (const [key, value] of this.#storage.iterate({ ...streamRange(Family.seq, stream, 0, this.#lastSeq), reverse: true, limit: 1 })) {
      const parsed = parseKey(key);
      if (parsed.family === 'seq') latest = { seq: parsed.n, rev: decodeCount(key, value, stream) };
    }
    let problem: string | null = null;
    if (latest === null) {
      if (h.rev !== 0) problem = `head says revision ${h.rev} at seq ${h.seq}, but the seq index has no entry for the stream`;
    } else if (latest.seq !== h.seq || latest.rev !== h.rev) {
      problem = `head says revision ${h.rev} at seq ${h.seq}, but the seq index ends at revision ${latest.rev} at seq ${latest.seq}`;
    } else {
      const bytes = await this.#storage.get(logKey(h.seq));
      const record = bytes === undefined ? null : decodeLog(logKey(h.seq), bytes, h.seq, stream, false);
      if (!record?.changes.some((c) => c.stream === stream && c.rev === h.rev)) {
        problem = `head says revision ${h.rev} at seq ${h.seq}, but transition ${h.seq} does not hold that revision`;
      }
    }
    if (problem === null || this.#headOf(stream) !== h) return;
    const err = corrupt(headKey(stream), problem, stream);
    this.#broken.set(stream, err);
    throw err;
  }

  /** `stream` at `rev` for callers that hold the write lock (no compaction can run meanwhile). */
  async #stateAtUnlocked(stream: StreamId, rev: number, exclusive = false): Promise<JsonObject> {
    const h = this.#retained(stream, rev);
    if (rev === h.rev) return this.#currentOf(stream, exclusive);
    return this.#reconstruct(stream, rev, h);
  }

  /** Rebuild `stream` at `rev` ({@link EventStore.#replay}). */
  async #reconstruct(stream: StreamId, rev: number, h: HeadRecord): Promise<JsonObject> {
    return (await this.#replay(stream, rev, h)).state;
  }

  /**
   * Rebuild `stream` at `rev`: nearest checkpoint at or below `rev` (never below the origin),
   * then at most K−1 stored net patches; with `measure`, also the checkpoint debt at `rev`
   * (otherwise its `patchBytes` is 0). Fails closed with STORE_CORRUPT.
   */
  async #replay(stream: StreamId, rev: number, h: HeadRecord, measure = false): Promise<Replay> {
    let base = EMPTY;
    let baseRev = 0;
    let checkpointBytes = 0;
    for await (const [key, value] of this.#storage.iterate({ ...streamRange(Family.checkpoint, stream, h.origin, rev), reverse: true, limit: 1 })) {
      const parsed = parseKey(key);
      if (parsed.family !== 'checkpoint') continue;
      // A checkpoint is the state at its revision: the history cache may hold it already.
      const cacheKey = `${stream}\u0000${parsed.n}`;
      base = this.#history.get(cacheKey) ?? this.#verified.decode(key, value, (verify) => decodeCheckpoint(key, value, stream, parsed.n, verify)).state;
      this.#history.set(cacheKey, base);
      baseRev = parsed.n;
      checkpointBytes = value.byteLength;
    }
    if (baseRev < h.origin) throw corrupt(checkpointKey(stream, h.origin), 'the checkpoint at the origin is missing', stream);
    // One patch series: the tail is applied with one copy of each touched container and one
    // deep freeze, instead of a copy and a freeze per patch.
    const series = patchSeries(base);
    let patchBytes = 0;
    for (const change of baseRev === rev ? [] : await this.#changes(stream, baseRev + 1, rev)) {
      try {
        series.apply(change.patch);
      } catch (err) {
        throw corrupt(revKey(stream, change.rev), `stored patch does not apply: ${(err as Error).message}`, stream, err);
      }
      if (measure) patchBytes += encodeValue(change.patch).byteLength;
    }
    const state = series.state();
    const problem = stateProblem(stream, state);
    if (problem !== null) throw corrupt(revKey(stream, rev), `replay gives an invalid state: ${problem}`, stream);
    return { state, debt: { patchBytes, checkpointBytes } };
  }

  /**
   * The stored changes of `stream` for revisions `from..to` (inclusive), through the revision
   * index, each from a hash-verified transition whose chain link to its successor holds.
   */
  async #changes(stream: StreamId, from: number, to: number): Promise<StreamChange[]> {
    const seqs: number[] = [];
    for await (const [key, value] of this.#storage.iterate(streamRange(Family.rev, stream, from, to))) {
      const parsed = parseKey(key);
      if (parsed.family !== 'rev') continue;
      if (parsed.n !== from + seqs.length) throw corrupt(revKey(stream, from + seqs.length), 'revision index entry is missing', stream);
      seqs.push(decodeCount(key, value, stream));
    }
    if (seqs.length !== to - from + 1) throw corrupt(revKey(stream, from + seqs.length), 'revision index entry is missing', stream);
    const own = new Set(seqs);
    const linkSeqs = seqs.map((s) => s + 1).filter((s) => s <= this.#lastSeq && !own.has(s));
    const keys = [...seqs, ...linkSeqs].map(logKey);
    const values = await this.#storage.getMany(keys);
    const records = new Map<number, LogRecord>();
    const prevHashes = new Map<number, unknown>();
    keys.forEach((key, i) => {
      const seq = (parseKey(key) as { seq: number }).seq;
      const bytes = values[i];
      if (own.has(seq)) {
        if (bytes === undefined) throw corrupt(key, 'transition is missing', stream);
        const record = this.#verified.decode(key, bytes, (verify) => decodeLog(key, bytes, seq, stream, verify));
        records.set(seq, record);
        prevHashes.set(seq, record.prevHash);
      } else if (bytes !== undefined) {
        // A neighbour's record is only read for its chain link; its own damage is not this stream's.
        prevHashes.set(seq, linkOf(bytes));
      }
    });
    return seqs.map((seq, i) => {
      const rev = from + i;
      const record = records.get(seq) as LogRecord;
      const next = prevHashes.get(seq + 1);
      if (typeof next === 'string' && next !== record.hash) throw corrupt(logKey(seq + 1), 'hash chain broken: prevHash does not match the previous transition', stream);
      const change = record.pruned ? undefined : record.changes.find((c) => c.stream === stream);
      if (change === undefined || change.rev !== rev) throw corrupt(logKey(seq), `transition does not hold revision ${rev} of the stream`, stream);
      return change;
    });
  }

  /** The stream's revision as of global `seq` (through the seq index). */
  async #revAtSeq(stream: StreamId, seq: number): Promise<number> {
    const h = this.#headOf(stream);
    if (seq >= h.seq) return h.rev;
    for await (const [key, value] of this.#storage.iterate({ ...streamRange(Family.seq, stream, 0, seq), reverse: true, limit: 1 })) {
      return decodeCount(key, value, stream);
    }
    return 0;
  }

  async #logRecord(seq: number, stream?: string, optional?: false): Promise<LogRecord>;
  async #logRecord(seq: number, stream: string | undefined, optional: true): Promise<LogRecord | null>;
  async #logRecord(seq: number, stream?: string, optional = false): Promise<LogRecord | null> {
    const key = logKey(seq);
    const bytes = await this.#storage.get(key);
    if (bytes === undefined) {
      if (optional) return null;
      throw corrupt(key, 'transition is missing', stream);
    }
    return decodeLog(key, bytes, seq, stream);
  }

  #pruned(record: PrunedRecord): StateflowError {
    const first = record.changes[0];
    const stream = first?.stream ?? '';
    const origin = this.#heads.get(stream)?.origin ?? 0;
    return new StateflowError(
      'HISTORY_NOT_RETAINED',
      `Transition ${record.seq} was removed by compaction (stream ${stream} now starts at revision ${origin})`,
      { stream, rev: first?.rev ?? 0, origin },
    );
  }

  // ---------------------------------------------------------------- internals: writing

  /** Commit one publication on its own (fork, revert). Caller holds the write lock. */
  async #commit(input: PublishInput): Promise<PublishResult> {
    const group = this.#newGroup();
    const result = await this.#stage(input, group);
    await this.#writeGroup(group);
    return result;
  }

  /**
   * Group commit: take every queued publish, stage each in order against memory as the earlier
   * ones will leave it (each accepted or rejected on its own, exactly as if they ran one after
   * another), write all accepted ones in one batch, then settle them. Runs as one write task.
   */
  async #commitQueued(): Promise<void> {
    const queued = this.#queue;
    this.#queue = [];
    const group = this.#newGroup();
    const settled: { item: Queued; result: PublishResult }[] = [];
    for (const item of queued) {
      try {
        settled.push({ item, result: await this.#stage(item.input, group) });
      } catch (err) {
        item.reject(err);
      }
    }
    try {
      await this.#writeGroup(group);
    } catch (err) {
      for (const { item } of settled) item.reject(err);
      return;
    }
    for (const { item, result } of settled) item.resolve(result);
  }

  #newGroup(): Group {
    return { staged: [], heads: new Map(), states: new Map(), ids: new Map(), lastSeq: this.#lastSeq, lastHash: this.#lastHash };
  }

  /** A stream's head as the group will leave it. */
  #groupHead(group: Group, stream: StreamId): HeadRecord {
    return group.heads.get(stream) ?? this.#headOf(stream);
  }

  /** Add a staged transition to the group: later members see its heads, states, id and hash. */
  #addToGroup(group: Group, staged: Staged): void {
    const { transition } = staged;
    for (const { stream, rev } of transition.changes) {
      group.heads.set(stream, { rev, seq: transition.seq, origin: this.#headOf(stream).origin });
      group.states.set(stream, staged.states.get(stream) as JsonObject);
    }
    if (transition.id !== undefined) group.ids.set(transition.id, transition);
    group.lastSeq = transition.seq;
    group.lastHash = transition.hash;
    group.staged.push(staged);
  }

  /**
   * Validate a publication against the group's view of the heads and stage it (nothing is
   * written here). Check order: idempotency id, expected revisions, every patch against the
   * captured basis, net patches, resulting state validity.
   */
  async #stage(input: PublishInput, group: Group): Promise<PublishResult> {
    this.#checkWritable();
    if (input.id !== undefined) {
      const sibling = group.ids.get(input.id);
      if (sibling !== undefined) return { status: 'duplicate', transition: sibling };
      const bytes = await this.#storage.get(idKey(input.id));
      if (bytes !== undefined) {
        const seq = decodeCount(idKey(input.id), bytes);
        const original = await this.#logRecord(seq);
        if (!original.pruned) return { status: 'duplicate', transition: original };
      }
    }
    const streams = Object.keys(input.changes);
    const basis = new Map<StreamId, JsonObject>();
    for (const s of streams) basis.set(s, group.states.get(s) ?? (await this.#currentOf(s)));
    this.#checkExpected(input.expected ?? {}, (s) => this.#groupHead(group, s));
    for (const s of streams) checkedInput(`the patch for stream ${s}`, () => validatePatch(basis.get(s) as JsonObject, input.changes[s]));
    const changes: StreamChange[] = [];
    const states = new Map<StreamId, JsonObject>();
    for (const s of streams) {
      const before = basis.get(s) as JsonObject;
      const net = netPatch(before, input.changes[s] as JsonObject);
      if (Object.keys(net).length === 0) continue;
      const after = applyPatch(before, net);
      const problem = stateProblem(s, after);
      if (problem !== null) {
        throw new StateflowError('PATCH_INVALID', `The patch for stream ${s} would leave an invalid state: ${problem}`, { reason: 'invalid-state', at: '' });
      }
      changes.push(Object.freeze({ stream: s, rev: this.#groupHead(group, s).rev + 1, patch: net }));
      states.set(s, after);
    }
    if (changes.length === 0) return NOOP;
    const body: Omit<Transition, 'hash' | 'prevHash'> = { seq: group.lastSeq + 1, time: this.#s.clock().toISOString(), changes: Object.freeze(changes) as StreamChange[] };
    if (input.id !== undefined) body.id = input.id;
    // Already a frozen copy (checkPublishInput): later mutation of the caller's object cannot
    // change what is stored, hashed, or seen by watchers and duplicates.
    if (input.meta !== undefined) body.meta = input.meta;
    const transition: Transition = Object.freeze({ ...body, prevHash: group.lastHash, hash: transitionHash(group.lastHash, body) });
    this.#addToGroup(group, { transition, states, sync: (input.durability ?? this.#s.durability) === 'fsync' });
    return { status: 'accepted', transition };
  }

  /** @throws CONFLICT when a stream's head (as `headOf` gives it) is not the expected revision. */
  #checkExpected(expected: Record<StreamId, ExpectedRevision>, headOf: (stream: StreamId) => HeadRecord): void {
    for (const [s, e] of Object.entries(expected)) {
      const actual = headOf(s).rev;
      if (e === 'any' || (e === 'none' && actual === 0) || e === actual) continue;
      throw new StateflowError(
        'CONFLICT',
        `Stream ${s} is at revision ${actual}, expected ${e === 'none' ? 'no revision' : `revision ${e}`}; re-read and retry`,
        { stream: s, expected: e, actual },
      );
    }
  }

  /**
   * Write every staged transition of a group in one atomic batch (synced when any member asked
   * for fsync), then install the group in memory and notify watchers in seq order.
   */
  async #writeGroup(group: Group): Promise<void> {
    if (group.staged.length === 0) return;
    const ops: StorageOp[] = [];
    const debts = new Map<StreamId, CheckpointDebt>();
    for (const { transition, states } of group.staged) {
      ops.push({ type: 'put', key: logKey(transition.seq), value: encodeRecord(transition) });
      for (const { stream, rev, patch } of transition.changes) {
        ops.push({ type: 'put', key: revKey(stream, rev), value: encodeRecord(transition.seq) });
        ops.push({ type: 'put', key: seqKey(stream, transition.seq), value: encodeRecord(rev) });
        const before = debts.get(stream) ?? this.#debt.get(stream) ?? NO_DEBT;
        let debt = { ...before, patchBytes: before.patchBytes + encodeValue(patch).byteLength };
        if (checkpointDue(rev, this.#s.checkpointInterval, debt)) {
          const state = states.get(stream) as JsonObject;
          const value = encodeRecord({ rev, seq: transition.seq, state, stateHash: stateHash(state) });
          ops.push({ type: 'put', key: checkpointKey(stream, rev), value });
          debt = { patchBytes: 0, checkpointBytes: value.byteLength };
        }
        debts.set(stream, debt);
      }
      if (transition.id !== undefined) ops.push({ type: 'put', key: idKey(transition.id), value: encodeRecord(transition.seq) });
    }
    for (const [stream, head] of group.heads) ops.push({ type: 'put', key: headKey(stream), value: encodeRecord(head) });
    const sync = group.staged.some((staged) => staged.sync) && this.#storage.capabilities.fsync;
    await this.#storage.write(ops, { sync });
    for (const [stream, head] of group.heads) {
      this.#heads.set(stream, head);
      this.#current.set(stream, group.states.get(stream) as JsonObject);
      this.#debt.set(stream, debts.get(stream) as CheckpointDebt);
    }
    this.#lastSeq = group.lastSeq;
    this.#lastHash = group.lastHash;
    for (const { transition } of group.staged) this.#hub.publish(transition);
  }

  /** Verify an exported transition for {@link Store.append}; stage it unchanged. */
  async #verifyImport(t: Transition): Promise<Staged> {
    const bad = (field: string, reason: string): StateflowError =>
      new StateflowError('INPUT_INVALID', `Cannot append transition ${describeInput(isJsonObject(t) ? t.seq : t)}: ${reason}`, { field, reason });
    if (!isJsonObject(t)) throw bad('transition', 'not an object');
    if (t.seq !== this.#lastSeq + 1) throw bad('seq', `seq must be ${this.#lastSeq + 1} (the store's last seq is ${this.#lastSeq})`);
    if (t.prevHash !== this.#lastHash) throw bad('prevHash', `prevHash does not match the hash of transition ${this.#lastSeq}`);
    if (typeof t.time !== 'string' || Number.isNaN(Date.parse(t.time))) throw bad('time', 'time is not an ISO 8601 timestamp');
    let meta: JsonObject | undefined;
    if (t.meta !== undefined) {
      try {
        meta = jsonObjectCopy(t.meta, 'meta');
      } catch (err) {
        throw bad('meta', `meta is not a JSON object: ${(err as Error).message}`);
      }
    }
    if (t.id !== undefined) {
      if (typeof t.id !== 'string' || t.id.length === 0) throw bad('id', 'id is not a non-empty string');
      if ((await this.#storage.get(idKey(t.id))) !== undefined) throw bad('id', `id ${JSON.stringify(t.id)} was already accepted`);
    }
    if (!Array.isArray(t.changes) || t.changes.length === 0) throw bad('changes', 'changes is empty');
    const states = new Map<StreamId, JsonObject>();
    for (const c of t.changes) {
      if (!isJsonObject(c)) throw bad('changes', 'a change is not an object');
      checkStream(c.stream);
      if (states.has(c.stream)) throw bad('changes', `stream ${c.stream} appears twice`);
      const h = this.#headOf(c.stream);
      if (c.rev !== h.rev + 1) throw bad('changes', `stream ${c.stream} is at revision ${h.rev}; the change has revision ${describeInput(c.rev)}`);
      const before = await this.#currentOf(c.stream);
      validatePatch(before, c.patch);
      if (Object.keys(netPatch(before, c.patch)).length === 0) throw bad('changes', `the patch for ${c.stream} changes nothing`);
      const after = applyPatch(before, c.patch);
      const problem = stateProblem(c.stream, after);
      if (problem !== null) throw bad('changes', `the patch for ${c.stream} leaves an invalid state: ${problem}`);
      states.set(c.stream, after);
    }
    const transition: Transition = { seq: t.seq, time: t.time, changes: t.changes.map((c) => ({ stream: c.stream, rev: c.rev, patch: c.patch })), prevHash: t.prevHash, hash: t.hash };
    if (t.id !== undefined) transition.id = t.id;
    if (meta !== undefined) transition.meta = meta;
    if (transitionHash(t.prevHash, transition) !== t.hash) throw bad('hash', 'hash does not match sha256(prevHash ‖ canonical(body))');
    return { transition, states, sync: this.#s.durability === 'fsync' };
  }

  // ---------------------------------------------------------------- internals: retention

  /**
   * Apply the retention policy to the streams a transition changed, at checkpoint boundaries.
   * Best effort: the transition is already accepted; a failure here is retried on the next
   * publish (and an audit reports stored damage).
   */
  async #applyRetention(t: Transition): Promise<void> {
    try {
      await this.#retain(t);
    } catch {
      // see above
    }
  }

  async #retain(t: Transition): Promise<void> {
    const policy = this.#s.retention;
    if (policy === null) return;
    const k = this.#s.checkpointInterval;
    for (const { stream } of t.changes) {
      const h = this.#headOf(stream);
      const target = Math.floor((h.rev - policy.keepRevisions + 1) / k) * k;
      if (target > h.origin) {
        await this.#lock.exclusive(async () => {
          const now = this.#headOf(stream);
          const origin = Math.floor((now.rev - policy.keepRevisions + 1) / k) * k;
          if (origin > now.origin) await this.#compactTo(stream, origin);
        });
      }
    }
  }

  /**
   * Move `stream`'s origin to `origin` in one batch: checkpoint at the origin, delete older
   * checkpoints and revision-index entries, and replace transitions that no retained revision of
   * any stream needs by pruned stubs that keep the chain link. Caller holds the exclusive lock.
   */
  async #compactTo(stream: StreamId, origin: number): Promise<{ origin: number; deleted: number }> {
    this.#checkWritable();
    await this.#currentOf(stream, true); // cross-checks the head before anything is rewritten
    const h = this.#headOf(stream);
    if (origin <= h.origin) return { origin: h.origin, deleted: 0 };
    const ops: StorageOp[] = [];
    if ((await this.#storage.get(checkpointKey(stream, origin))) === undefined) {
      const state = await this.#stateAtUnlocked(stream, origin, true);
      const seq = origin === h.rev ? h.seq : await this.#seqOfRev(stream, origin);
      ops.push({ type: 'put', key: checkpointKey(stream, origin), value: encodeRecord({ rev: origin, seq, state, stateHash: stateHash(state) }) });
    }
    for await (const [key] of this.#storage.iterate(streamRange(Family.checkpoint, stream, 0, origin - 1))) ops.push({ type: 'del', key });
    const origins = (s: StreamId): number => (s === stream ? origin : this.#headOf(s).origin);
    for await (const [key, value] of this.#storage.iterate(streamRange(Family.rev, stream, 0, origin))) {
      ops.push({ type: 'del', key });
      const seq = decodeCount(key, value, stream);
      const record = await this.#logRecord(seq, stream);
      if (record.pruned || !record.changes.every((c) => c.rev <= origins(c.stream))) continue;
      const stub: PrunedRecord = { pruned: true, seq, changes: record.changes.map((c) => ({ stream: c.stream, rev: c.rev })), prevHash: record.prevHash, hash: record.hash };
      ops.push({ type: 'put', key: logKey(seq), value: encodeRecord(stub) });
      if (record.id !== undefined) ops.push({ type: 'del', key: idKey(record.id) });
    }
    const head: HeadRecord = { rev: h.rev, seq: h.seq, origin };
    ops.push({ type: 'put', key: headKey(stream), value: encodeRecord(head) });
    await this.#storage.write(ops, { sync: this.#s.durability === 'fsync' && this.#storage.capabilities.fsync });
    this.#heads.set(stream, head);
    // Reloaded on next use, so its checkpoint debt counts from the latest checkpoint again.
    this.#current.delete(stream);
    this.#debt.delete(stream);
    this.#history.deleteWhere((key) => key.startsWith(`${stream}\u0000`) && Number(key.slice(stream.length + 1)) < origin);
    return { origin, deleted: origin - h.origin };
  }

  async #seqOfRev(stream: StreamId, rev: number): Promise<number> {
    const key = revKey(stream, rev);
    const bytes = await this.#storage.get(key);
    if (bytes === undefined) throw corrupt(key, 'revision index entry is missing', stream);
    return decodeCount(key, bytes, stream);
  }

  // ---------------------------------------------------------------- internals: watch

  async *#watch(from: number, streams: Set<StreamId> | null, signal: AbortSignal): AsyncGenerator<Transition> {
    const wanted = (t: Transition): boolean => streams === null || t.changes.some((c) => streams.has(c.stream));
    const subscriber = this.#hub.subscribe();
    try {
      let last = from;
      const caughtUpTo = this.#lastSeq;
      if (last < caughtUpTo) {
        for await (const t of this.transitions({ from: last + 1, to: caughtUpTo })) {
          if (signal.aborted) return;
          last = t.seq;
          if (wanted(t)) yield t;
        }
        last = Math.max(last, caughtUpTo);
      }
      for (;;) {
        await subscriber.wait(signal);
        if (signal.aborted) return;
        const t = subscriber.queue.shift();
        if (t === undefined) {
          if (subscriber.closed) return;
          continue;
        }
        if (t.seq <= last) continue;
        last = t.seq;
        if (wanted(t)) yield t;
      }
    } finally {
      this.#hub.unsubscribe(subscriber);
    }
  }
}
