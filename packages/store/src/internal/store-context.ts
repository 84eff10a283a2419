/**
 * The state one open store shares between its internal modules (README "Storage layout",
 * "Opening"): this module owns the {@link StoreContext} shape, loading it at open (every head
 * record and the chain tip, never the log), and the guards every module applies to it — the
 * store is open, writes are possible, and a stream's head (failing closed for a broken stream).
 * Memory in the context changes only after a batch was written.
 */
import { StateTree, StateflowError, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { PublishInput, PublishResult, StreamId } from '../types.js';
import { AccessLock } from './access-lock.js';
import type { CheckpointDebt } from './checkpoint-policy.js';
import { GENESIS_HASH } from './hash.js';
import { Family, familyRange, parseKey, tipKey } from './keys.js';
import { Lru } from './lru.js';
import { decodeHead, decodeLog, decodeTip } from './records.js';
import type { HeadRecord } from './records.js';
import type { Settings } from './settings.js';
import type { Storage, StorageReader } from '../storage.js';
import { WatchHub } from './watch-hub.js';

/** The empty state: every stream's state at revision 0. */
export const EMPTY: JsonObject = Object.freeze({}) as JsonObject;
/** The empty state as a tree. */
export const EMPTY_TREE: StateTree = StateTree.of(EMPTY);
const ZERO_HEAD: HeadRecord = Object.freeze({ rev: 0, seq: 0, origin: 0 });

/** A publish — or an all-or-nothing batch of them (`publishMany`) — waiting for the next group commit. */
export interface Queued {
  inputs: PublishInput[];
  /** Wall-clock ms the batch's staging may take (`publishMany`'s `budgetMs`); none when absent. */
  budgetMs?: number;
  resolve: (results: PublishResult[]) => void;
  reject: (err: unknown) => void;
}

/**
 * In memory for one open store: every stream's head (loaded at open), the current state of each
 * stream once it was first used (checkpoint + tail replay), the last seq and hash, and an LRU of
 * reconstructed historical states.
 */
export interface StoreContext {
  readonly storage: Storage;
  readonly settings: Settings;
  readonly lock: AccessLock;
  readonly hub: WatchHub;
  readonly heads: Map<StreamId, HeadRecord>;
  /** Streams whose head record does not decode: every use fails closed with this error. */
  readonly broken: Map<StreamId, StateflowError>;
  /** Current states as trees (README "State trees"): a publish into a large state costs what it changes. */
  readonly current: Map<StreamId, StateTree>;
  /** Checkpoint debt of every stream in `current` (set and updated together with it). */
  readonly debt: Map<StreamId, CheckpointDebt>;
  /** Publishes waiting for the next group commit. */
  queue: Queued[];
  readonly history: Lru<string, JsonObject>;
  lastSeq: number;
  lastHash: string;
  /** The tip record's generation as this store last saw it (`M/tip`; README "Storage seam"). */
  generation: number;
  /** Catch-ups (shared storage only) run one after another on this chain ... */
  catchUpChain: Promise<void>;
  /** ... and callers arriving while one waits to start join it. */
  pendingCatchUp: Promise<void> | null;
  /** Set when the chain tip does not decode: reads still work, writes fail closed. */
  tipError: StateflowError | null;
  /**
   * Set by the first storage write that fails: from then on the store accepts no write until it
   * is reopened (README "Fail closed"). LevelDB goes on appending to its log after a failed
   * append, and its recovery then drops everything after the torn record, so a write accepted
   * after a failure could be acknowledged and lost.
   */
  writeFailure: StateflowError | null;
  closed: boolean;
}

/** A context over opened `storage`, with heads and the chain tip loaded (never the log). */
export async function loadContext(storage: Storage, settings: Settings): Promise<StoreContext> {
  const ctx: StoreContext = {
    storage,
    settings,
    lock: new AccessLock(),
    hub: new WatchHub(),
    heads: new Map(),
    broken: new Map(),
    current: new Map(),
    debt: new Map(),
    queue: [],
    history: new Lru(settings.cacheSize),
    lastSeq: 0,
    lastHash: GENESIS_HASH,
    generation: 0,
    catchUpChain: Promise.resolve(),
    pendingCatchUp: null,
    tipError: null,
    writeFailure: null,
    closed: false,
  };
  // One snapshot, so that heads, the generation and the chain tip agree even while other
  // processes commit (storage shared by many writers).
  await storage.snapshot((reader) => loadHeadsAndTip(ctx, reader));
  return ctx;
}

/**
 * Every head record of `reader`; a head that does not decode marks its stream broken (its
 * STORE_CORRUPT, thrown on use: `StoreContext.broken`) instead of failing the whole store.
 */
export async function readHeads(reader: StorageReader): Promise<{ heads: Map<StreamId, HeadRecord>; broken: Map<StreamId, StateflowError> }> {
  const heads = new Map<StreamId, HeadRecord>();
  const broken = new Map<StreamId, StateflowError>();
  for await (const [key, value] of reader.iterate(familyRange(Family.head))) {
    const parsed = parseKey(key);
    if (parsed.family !== 'head') continue;
    try {
      heads.set(parsed.stream, decodeHead(key, value, parsed.stream));
    } catch (err) {
      if (!isStateflowError(err, 'STORE_CORRUPT')) throw err;
      broken.set(parsed.stream, err);
    }
  }
  return { heads, broken };
}

async function loadHeadsAndTip(ctx: StoreContext, reader: StorageReader): Promise<void> {
  const { heads, broken } = await readHeads(reader);
  for (const [stream, head] of heads) ctx.heads.set(stream, head);
  for (const [stream, err] of broken) ctx.broken.set(stream, err);
  const tip = await reader.get(tipKey());
  if (tip !== undefined) ctx.generation = decodeTip(tipKey(), tip).generation;
  for await (const [key, value] of reader.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
    const parsed = parseKey(key);
    if (parsed.family !== 'log') continue;
    ctx.lastSeq = parsed.seq;
    try {
      ctx.lastHash = decodeLog(key, value, parsed.seq).hash;
    } catch (err) {
      if (!isStateflowError(err, 'STORE_CORRUPT')) throw err;
      ctx.tipError = err;
    }
  }
}

/** @throws STORE_CLOSED after `close()` */
export function checkOpen(ctx: StoreContext): void {
  if (ctx.closed) throw new StateflowError('STORE_CLOSED', 'The store is closed', {});
}

/**
 * @throws STORE_CLOSED; REOPEN_REQUIRED `{ location, failure }` after a failed storage write;
 *   STORE_CORRUPT when the chain tip does not decode
 */
export function checkWritable(ctx: StoreContext): void {
  checkOpen(ctx);
  const failure = ctx.writeFailure;
  if (failure !== null) {
    const where = ctx.storage.location ?? 'the in-memory store';
    throw new StateflowError(
      'REOPEN_REQUIRED',
      `An earlier write to ${where} failed (${failure.code}: ${failure.message}); this open store accepts no more writes. Close it and open it again: opening checks its files and shows exactly the acknowledged transitions`,
      { location: ctx.storage.location, failure: failure.code },
      { cause: failure },
    );
  }
  if (ctx.tipError !== null) throw ctx.tipError;
}

/**
 * A stream's head (revision 0 at seq 0 when it has none).
 * @throws STORE_CORRUPT when the stream's head record is broken
 */
export function headOf(ctx: StoreContext, stream: StreamId): HeadRecord {
  const broken = ctx.broken.get(stream);
  if (broken !== undefined) throw broken;
  return ctx.heads.get(stream) ?? ZERO_HEAD;
}
