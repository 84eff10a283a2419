/**
 * The event store implementation (DESIGN.md "Store model"; README "Storage layout").
 *
 * Public methods validate their arguments, take the right lock, then work through the storage
 * seam. In memory it keeps: every stream's head (loaded at open), the current state of each
 * stream once it was first used (checkpoint + tail replay), the last seq and hash, and an LRU of
 * reconstructed historical states. Memory changes only after a batch was written.
 */
import { StateflowError, applyPatch, diff, isJsonObject, isStateflowError, netPatch, overlay, validatePatch } from '@stateflow/core';
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
import type { Storage, StorageOp } from './storage.js';
import { checkCount, checkPublishInput, checkStream, stateProblem } from './validate.js';
import { WatchHub } from './watch-hub.js';
import { decodeValue } from './codec.js';

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
  const k = options.checkpointInterval ?? 64;
  if (!Number.isSafeInteger(k) || k < 1) {
    throw new StateflowError('INPUT_INVALID', `checkpointInterval must be an integer ≥ 1, got ${String(k)}`, { field: 'checkpointInterval' });
  }
  const cacheSize = options.cacheSize ?? 256;
  checkCount(cacheSize, 'cacheSize');
  const durability = options.durability ?? 'buffered';
  if (durability !== 'buffered' && durability !== 'fsync') {
    throw new StateflowError('INPUT_INVALID', `durability must be "buffered" or "fsync"`, { field: 'durability' });
  }
  const keep = options.retention?.keepRevisions;
  if (keep !== undefined && (!Number.isSafeInteger(keep) || keep < 1)) {
    throw new StateflowError('INPUT_INVALID', `retention.keepRevisions must be an integer ≥ 1, got ${String(keep)}`, { field: 'retention.keepRevisions' });
  }
  return {
    checkpointInterval: k,
    durability,
    cacheSize,
    retention: keep === undefined ? null : { keepRevisions: keep },
    clock: options.clock ?? (() => new Date()),
  };
}

/** What a commit writes and then installs in memory. */
interface Staged {
  transition: Transition;
  states: Map<StreamId, JsonObject>;
  sync: boolean;
}

/**
 * Open a store over already-opened storage: check (or write) the format record, load heads and
 * the chain tip. Closes the storage when it fails.
 * @throws STORE_VERSION, STORE_CORRUPT (format record), STORE_IO
 */
export async function openEventStore(storage: Storage, options?: StoreOptions): Promise<Store> {
  try {
    const s = settings(options);
    await checkFormat(storage);
    const store = new EventStore(storage, s);
    await store.load();
    return store;
  } catch (err) {
    await storage.close().catch(() => undefined);
    throw err;
  }
}

async function checkFormat(storage: Storage): Promise<void> {
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
  readonly #history: Lru<string, JsonObject>;
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
    for (const s of streams) checkStream(s);
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
    for (const s of streams) checkStream(s);
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
    const from = range.from ?? 1;
    const to = range.to ?? this.#lastSeq;
    checkCount(from, 'from');
    checkCount(to, 'to');
    if (range.stream !== undefined) checkStream(range.stream);
    if (range.stream === undefined) {
      for await (const [key, value] of this.#storage.iterate(logRange(Math.max(from, 1), to))) {
        const parsed = parseKey(key);
        if (parsed.family !== 'log') continue;
        const record = decodeLog(key, value, parsed.seq);
        if (!record.pruned) yield record;
      }
      return;
    }
    const stream = range.stream;
    for await (const [key] of this.#storage.iterate(streamRange(Family.seq, stream, Math.max(from, 1), to))) {
      const parsed = parseKey(key);
      if (parsed.family !== 'seq') continue;
      const record = await this.#logRecord(parsed.n, stream, true);
      if (record !== null && !record.pruned) yield record;
    }
  }

  async diff(stream: StreamId, revA: number, revB: number): Promise<JsonObject> {
    const [a, b] = [await this.stateAt(stream, revA), await this.stateAt(stream, revB)];
    return diff(a, b);
  }

  // ---------------------------------------------------------------- writes

  async publish(input: PublishInput): Promise<PublishResult> {
    this.#checkOpen();
    checkPublishInput(input);
    const result = await this.#lock.write(() => this.#commit(input));
    if (result.status === 'accepted') await this.#applyRetention(result.transition);
    return result;
  }

  async fork(from: StreamId, to: StreamId, options: ForkOptions = {}): Promise<PublishResult> {
    this.#checkOpen();
    checkStream(from);
    checkStream(to);
    if (from === to) throw new StateflowError('INPUT_INVALID', `fork needs two different streams, got ${from} twice`, { field: 'to' });
    if (options.at !== undefined) checkCount(options.at, 'at');
    const expected: ExpectedRevision = options.expected ?? 'none';
    const result = await this.#lock.write(async () => {
      const at = options.at ?? this.#headOf(from).rev;
      const source = await this.#stateAtUnlocked(from, at);
      const target = await this.#currentOf(to);
      const patch = diff(target, source);
      if (Object.keys(patch).length === 0) {
        this.#checkExpected({ [to]: expected });
        return NOOP;
      }
      const input: PublishInput = { changes: { [to]: patch }, expected: { [to]: expected }, meta: { fork: { from, rev: at } } };
      if (options.id !== undefined) input.id = options.id;
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
      return this.#commit({ changes: { [stream]: patch }, expected: { [stream]: h.rev }, meta: { revert: { stream, rev: toRev } } });
    });
    if (result.status === 'accepted') await this.#applyRetention(result.transition);
    return result;
  }

  async append(transition: Transition): Promise<void> {
    this.#checkOpen();
    await this.#lock.write(async () => {
      this.#checkWritable();
      const staged = await this.#verifyImport(transition);
      await this.#write(staged);
    });
  }

  async compact(stream: StreamId, options: { keepRevisions: number }): Promise<{ origin: number; deleted: number }> {
    this.#checkOpen();
    checkStream(stream);
    const keep = options?.keepRevisions;
    if (!Number.isSafeInteger(keep) || keep < 1) {
      throw new StateflowError('INPUT_INVALID', `keepRevisions must be an integer ≥ 1, got ${String(keep)}`, { field: 'keepRevisions' });
    }
    return this.#lock.exclusive(async () => {
      const h = this.#headOf(stream);
      return this.#compactTo(stream, Math.max(h.origin, h.rev - keep + 1));
    });
  }

  async audit(options: { onProgress?: (done: number, total: number) => void } = {}): Promise<AuditReport> {
    this.#checkOpen();
    return this.#lock.write(() => runAudit(this.#storage, options.onProgress));
  }

  watch(options: WatchOptions = {}): AsyncIterable<Transition> {
    this.#checkOpen();
    const from = options.from ?? this.#lastSeq;
    checkCount(from, 'from');
    for (const s of options.streams ?? []) checkStream(s);
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
   * Current state, loading it (latest checkpoint + tail) on first use. `exclusive`: the caller
   * holds the exclusive lock already (taking a read lock then would wait for itself).
   */
  async #currentOf(stream: StreamId, exclusive = false): Promise<JsonObject> {
    const loaded = this.#current.get(stream);
    if (loaded !== undefined) return loaded;
    const h = this.#headOf(stream);
    if (h.rev === 0) return EMPTY;
    const load = (): Promise<JsonObject> => this.#reconstruct(stream, h.rev, h);
    const state = await (exclusive ? load() : this.#lock.read(load));
    // A publish may have installed a newer state while this load ran; never overwrite it.
    if (!this.#current.has(stream) && this.#heads.get(stream) === h) this.#current.set(stream, state);
    return this.#current.get(stream) ?? state;
  }

  /** `stream` at `rev` for callers that hold the write lock (no compaction can run meanwhile). */
  async #stateAtUnlocked(stream: StreamId, rev: number, exclusive = false): Promise<JsonObject> {
    const h = this.#retained(stream, rev);
    if (rev === h.rev) return this.#currentOf(stream, exclusive);
    return this.#reconstruct(stream, rev, h);
  }

  /**
   * Rebuild `stream` at `rev`: nearest checkpoint at or below `rev` (never below the origin),
   * then at most K−1 stored net patches. Fails closed with STORE_CORRUPT.
   */
  async #reconstruct(stream: StreamId, rev: number, h: HeadRecord): Promise<JsonObject> {
    let base = EMPTY;
    let baseRev = 0;
    for await (const [key, value] of this.#storage.iterate({ ...streamRange(Family.checkpoint, stream, h.origin, rev), reverse: true, limit: 1 })) {
      const parsed = parseKey(key);
      if (parsed.family !== 'checkpoint') continue;
      base = decodeCheckpoint(key, value, stream, parsed.n).state;
      baseRev = parsed.n;
    }
    if (baseRev < h.origin) throw corrupt(checkpointKey(stream, h.origin), 'the checkpoint at the origin is missing', stream);
    if (baseRev === rev) return base;
    let state = base;
    for (const change of await this.#changes(stream, baseRev + 1, rev)) {
      try {
        state = applyPatch(state, change.patch);
      } catch (err) {
        throw corrupt(revKey(stream, change.rev), `stored patch does not apply: ${(err as Error).message}`, stream, err);
      }
    }
    const problem = stateProblem(stream, state);
    if (problem !== null) throw corrupt(revKey(stream, rev), `replay gives an invalid state: ${problem}`, stream);
    return state;
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
        const record = decodeLog(key, bytes, seq, stream);
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

  /**
   * Validate and stage a publication against the current heads, write it as one batch and
   * install it in memory. Caller holds the write lock.
   */
  async #commit(input: PublishInput): Promise<PublishResult> {
    this.#checkWritable();
    if (input.id !== undefined) {
      const bytes = await this.#storage.get(idKey(input.id));
      if (bytes !== undefined) {
        const seq = decodeCount(idKey(input.id), bytes);
        const original = await this.#logRecord(seq);
        if (!original.pruned) return { status: 'duplicate', transition: original };
      }
    }
    const streams = Object.keys(input.changes);
    const expected = input.expected ?? {};
    const basis = new Map<StreamId, JsonObject>();
    for (const s of streams) basis.set(s, await this.#currentOf(s));
    this.#checkExpected(expected);
    for (const s of streams) validatePatch(basis.get(s) as JsonObject, input.changes[s]);
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
      changes.push({ stream: s, rev: this.#headOf(s).rev + 1, patch: net });
      states.set(s, after);
    }
    if (changes.length === 0) return NOOP;
    const body: Omit<Transition, 'hash' | 'prevHash'> = { seq: this.#lastSeq + 1, time: this.#s.clock().toISOString(), changes };
    if (input.id !== undefined) body.id = input.id;
    // A frozen copy: later mutation of the caller's object cannot change what watchers and
    // duplicates see (the codec round trip also keeps `__proto__` keys as data).
    if (input.meta !== undefined) body.meta = decodeValue(encodeRecord(input.meta)) as JsonObject;
    Object.freeze(changes);
    changes.forEach((c) => Object.freeze(c));
    const transition: Transition = Object.freeze({ ...body, prevHash: this.#lastHash, hash: transitionHash(this.#lastHash, body) });
    const staged = { transition, states, sync: (input.durability ?? this.#s.durability) === 'fsync' };
    await this.#write(staged);
    return { status: 'accepted', transition };
  }

  /** @throws CONFLICT when a stream's head is not the expected revision. */
  #checkExpected(expected: Record<StreamId, ExpectedRevision>): void {
    for (const [s, e] of Object.entries(expected)) {
      const actual = this.#headOf(s).rev;
      if (e === 'any' || (e === 'none' && actual === 0) || e === actual) continue;
      throw new StateflowError(
        'CONFLICT',
        `Stream ${s} is at revision ${actual}, expected ${e === 'none' ? 'no revision' : `revision ${e}`}; re-read and retry`,
        { stream: s, expected: e, actual },
      );
    }
  }

  /** Write one transition's batch, then install it in memory and notify watchers. */
  async #write({ transition, states, sync }: Staged): Promise<void> {
    const ops: StorageOp[] = [{ type: 'put', key: logKey(transition.seq), value: encodeRecord(transition) }];
    const heads = new Map<StreamId, HeadRecord>();
    for (const { stream, rev } of transition.changes) {
      const origin = this.#headOf(stream).origin;
      const head: HeadRecord = { rev, seq: transition.seq, origin };
      heads.set(stream, head);
      ops.push({ type: 'put', key: revKey(stream, rev), value: encodeRecord(transition.seq) });
      ops.push({ type: 'put', key: seqKey(stream, transition.seq), value: encodeRecord(rev) });
      ops.push({ type: 'put', key: headKey(stream), value: encodeRecord(head) });
      if (rev % this.#s.checkpointInterval === 0) {
        const state = states.get(stream) as JsonObject;
        ops.push({ type: 'put', key: checkpointKey(stream, rev), value: encodeRecord({ rev, seq: transition.seq, state, stateHash: stateHash(state) }) });
      }
    }
    if (transition.id !== undefined) ops.push({ type: 'put', key: idKey(transition.id), value: encodeRecord(transition.seq) });
    await this.#storage.write(ops, { sync: sync && this.#storage.capabilities.fsync });
    for (const [stream, head] of heads) {
      this.#heads.set(stream, head);
      this.#current.set(stream, states.get(stream) as JsonObject);
    }
    this.#lastSeq = transition.seq;
    this.#lastHash = transition.hash;
    this.#hub.publish(transition);
  }

  /** Verify an exported transition for {@link Store.append}; stage it unchanged. */
  async #verifyImport(t: Transition): Promise<Staged> {
    const bad = (field: string, reason: string): StateflowError =>
      new StateflowError('INPUT_INVALID', `Cannot append transition ${String(t?.seq)}: ${reason}`, { field, reason });
    if (!isJsonObject(t)) throw bad('transition', 'not an object');
    if (t.seq !== this.#lastSeq + 1) throw bad('seq', `seq must be ${this.#lastSeq + 1} (the store's last seq is ${this.#lastSeq})`);
    if (t.prevHash !== this.#lastHash) throw bad('prevHash', `prevHash does not match the hash of transition ${this.#lastSeq}`);
    if (typeof t.time !== 'string' || Number.isNaN(Date.parse(t.time))) throw bad('time', 'time is not an ISO 8601 timestamp');
    if (t.meta !== undefined && !isJsonObject(t.meta)) throw bad('meta', 'meta is not a JSON object');
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
      if (c.rev !== h.rev + 1) throw bad('changes', `stream ${c.stream} is at revision ${h.rev}; the change has revision ${String(c.rev)}`);
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
    if (t.meta !== undefined) transition.meta = t.meta;
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
