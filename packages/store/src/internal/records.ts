/**
 * Stored record shapes and their fail-closed decoders. A value that does not decode, has the
 * wrong shape, or (for transitions and checkpoints) does not match its own hash becomes
 * STORE_CORRUPT naming the key (and the stream being read, when there is one).
 */
import { hash } from 'node:crypto';
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { PrunedTransition, Transition } from '../types.js';
import { asciiJson, decodeFields, decodeRaw, decodeValue, encodeValue, parseAsciiJson, parseJsonText, toFrozenJson } from './codec.js';
import { transitionHash } from './hash.js';
import { describeKey } from './keys.js';
import { stateProblem } from './validate.js';

/**
 * Format identity written on creation (`M/format`). Version 5 (README "Storage layout"): each
 * revision's net patch is stored once, in its transition's log record — JSON text sealed under
 * its key beside the chain hashes — and the sealed revision-index record holds `{ seq, base }`
 * only; checkpoints are sealed JSON text — one record, or for a large state a root record and
 * pages shared between checkpoints (`P`; README "Paged checkpoints"). Version-4 stores differ
 * in their log records (MessagePack transitions) and in revision-index records that carry a
 * copy of the patch, version-3 stores also in having no paged checkpoints, version-2 stores
 * also in checkpoints holding the state as MessagePack; this version reads all of them, record
 * by record (a store opened at an older version keeps its records and writes new ones in this
 * format), and opening one rewrites its format record alone; version-1 stores are migrated on
 * open (`format-migration.ts`).
 */
export const FORMAT = { format: 'stateflow-store', version: 5 } as const;

/**
 * `M/tip`: what the last commit left. `seq` is the last transition's seq; `generation` counts the
 * commits that changed existing records rather than appending a transition (compactions): when
 * it moves, heads may have changed without a transition. A store that shares its storage with
 * other processes reads it before each operation to know whether to catch up (README "Storage
 * seam"). Stores written before 0.2 have none: the tip is then the last log record, generation 0.
 */
export interface TipRecord {
  seq: number;
  generation: number;
}

/** Decode `M/tip`. */
export function decodeTip(key: Uint8Array, bytes: Uint8Array): TipRecord {
  const v = decode(key, bytes);
  if (!isJsonObject(v) || !isCount(v.seq) || !isCount(v.generation)) throw corrupt(key, 'tip record has the wrong shape');
  return { seq: v.seq, generation: v.generation };
}

/** `H/<stream>`: a stream's head. */
export interface HeadRecord {
  rev: number;
  seq: number;
  origin: number;
}

/**
 * `C/<stream>/<rev>`: a full state snapshot (sealed). Stored as `{ rev, seq, json }` with the
 * state as ASCII JSON text in a binary field (format 3; format-2 checkpoints hold `state` as
 * MessagePack instead).
 */
export interface CheckpointRecord {
  rev: number;
  seq: number;
  state: JsonObject;
  /**
   * A paged checkpoint's root record (format 4, stored as `{ rev, seq, root, pages }`, see
   * {@link encodePagedRefs}): `state`
   * holds each large object as `{}`, and this names those objects and their pages
   * (`paged-checkpoint.ts`); `undefined` for a checkpoint in one record.
   */
  paged?: PagedObjectRef[] | undefined;
}

/** A large object of a paged checkpoint's root: its key path, the next ordinal of an appended key, and its pages as `[rev, n]` of `P/<stream>/<rev>/<n>`. */
export interface PagedObjectRef {
  path: string[];
  next: number;
  pages: [number, number][];
}

/**
 * `R/<stream>/<rev>` (sealed): the seq of the transition that produced `rev` and `base`, the
 * revision of the stream's latest checkpoint at or below `rev` when it was written (0: none;
 * compaction may delete it, readers then start from the origin's checkpoint). Format 5 writes
 * `{ seq, base }`: the net patch is read from the transition's log record. A format-4 record
 * also holds a copy of that patch (`patch`), which readers take instead.
 */
export interface RevisionRecord {
  seq: number;
  base: number;
  patch?: JsonObject | undefined;
}

/** Encode `R/<stream>/<rev>` (format 5: sealed `{ seq, base }`). */
export function encodeRevision(key: Uint8Array, record: { seq: number; base: number }): Uint8Array {
  return encodeSealed(key, { seq: record.seq, base: record.base });
}

/** Bytes of the seal that ends every sealed record (a sha256). */
export const SEAL_BYTES = 32;

/** `sha256(key ‖ body)`: the seal of a sealed record's body under its key. */
function sealOf(key: Uint8Array, body: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([key, body]), 'buffer');
}

/**
 * Encode a sealed record (`R`, `C`): MessagePack body ‖ `sha256(key ‖ body)`. The seal is a cheap
 * integrity check of the raw bytes on read (a damaged or moved record fails closed); the audit
 * ties the sealed contents to the hash chain.
 */
export function encodeSealed(key: Uint8Array, record: unknown): Uint8Array {
  const body = encodeValue(record);
  return sealedValue(key, body.byteLength, (out, at) => out.set(body, at));
}

/**
 * `body ‖ sha256(key ‖ body)` for a body of `bodyBytes` bytes that `write(out, at)` writes at
 * `at`: built in one buffer behind a copy of the key, so the seal hashes it without a concat
 * (the value returned is a view past the key).
 */
function sealedValue(key: Uint8Array, bodyBytes: number, write: (out: Buffer, at: number) => void): Buffer {
  const out = Buffer.allocUnsafe(key.byteLength + bodyBytes + SEAL_BYTES);
  out.set(key, 0);
  write(out, key.byteLength);
  const end = key.byteLength + bodyBytes;
  hash('sha256', out.subarray(0, end), 'buffer').copy(out, end);
  return out.subarray(key.byteLength);
}

/** First byte of a format-5 transition record: 0xc1, a byte MessagePack never uses, so a format-4 record (a MessagePack map) is told apart by it. */
const TRANSITION_TAG = 0xc1;
/** Bytes of the tag and the two chain hashes before a format-5 transition's JSON text. */
const TRANSITION_HEAD = 1 + 32 + 32;

/** Whether stored log-record bytes are a format-5 transition ({@link encodeTransition}), by their first byte. */
export const isSealedTransition = (bytes: Uint8Array): boolean => bytes[0] === TRANSITION_TAG;

/** Whether a format-5 transition record's text (between the hashes and the seal) parses as JSON. */
export function sealedTransitionParses(bytes: Uint8Array): boolean {
  try {
    parseJsonText(bytes.subarray(TRANSITION_HEAD, bytes.byteLength - SEAL_BYTES), false);
    return true;
  } catch {
    return false;
  }
}

/**
 * Encode a transition as `L/<seq>` (format 5): tag ‖ `prevHash` ‖ `hash` (32 bytes each) ‖ the
 * JSON text (UTF-8) of its body `{ seq, time, id?, meta?, changes }` in the key order it was
 * written with ‖ `sha256(key ‖ all before)`. The body text is the one copy of each revision's
 * net patch; the seal lets a read verify the record without canonicalising it (the audit
 * recomputes the chain hash).
 */
export function encodeTransition(key: Uint8Array, t: Transition): Uint8Array {
  const body: Record<string, unknown> = { seq: t.seq, time: t.time };
  if (t.id !== undefined) body.id = t.id;
  if (t.meta !== undefined) body.meta = t.meta;
  body.changes = t.changes;
  const text = JSON.stringify(body);
  return sealedValue(key, TRANSITION_HEAD + Buffer.byteLength(text, 'utf8'), (out, at) => {
    out[at] = TRANSITION_TAG;
    out.write(t.prevHash, at + 1, 32, 'hex');
    out.write(t.hash, at + 33, 32, 'hex');
    out.write(text, at + TRANSITION_HEAD, 'utf8');
  });
}

/** The fields of a format-5 transition record ({@link encodeTransition}) after its seal was checked, in the shape a format-4 record decodes to. */
function sealedTransition(key: Uint8Array, bytes: Uint8Array, stream: string | undefined, frozen: boolean): JsonValue {
  if (bytes.byteLength <= TRANSITION_HEAD + SEAL_BYTES || !sealHolds(key, bytes)) throw corrupt(key, SEAL_DETAIL, stream);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let body: JsonValue;
  try {
    body = parseJsonText(b.subarray(TRANSITION_HEAD, b.byteLength - SEAL_BYTES), frozen);
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
  if (!isJsonObject(body) || Object.hasOwn(body, 'prevHash') || Object.hasOwn(body, 'hash') || Object.hasOwn(body, 'pruned')) throw corrupt(key, 'log record has the wrong shape', stream);
  return { ...body, prevHash: b.toString('hex', 1, 33), hash: b.toString('hex', 33, TRANSITION_HEAD) };
}

/** Whether a sealed record's bytes end with the seal of the rest under `key`. */
export function sealHolds(key: Uint8Array, bytes: Uint8Array): boolean {
  if (bytes.byteLength <= SEAL_BYTES) return false;
  const cut = bytes.byteLength - SEAL_BYTES;
  return sealOf(key, bytes.subarray(0, cut)).equals(bytes.subarray(cut));
}

/** The detail of a STORE_CORRUPT error for a record whose seal does not hold. */
export const SEAL_DETAIL = 'the record does not match its seal';

/** The decoded body of a sealed record after its seal was checked (`frozen: false`: see {@link decodeValue}). */
function unseal(key: Uint8Array, bytes: Uint8Array, stream?: string, frozen = true): JsonValue {
  if (!sealHolds(key, bytes)) throw corrupt(key, SEAL_DETAIL, stream);
  return decode(key, bytes.subarray(0, bytes.byteLength - SEAL_BYTES), stream, frozen);
}

/**
 * The seq a stored `R`, `C` or `I` record names (for truncating a log), in either format, or
 * `undefined` when the value does not decode.
 */
export function storedSeq(key: Uint8Array, bytes: Uint8Array): number | undefined {
  // Sealed (format 2 and 3) or not (`I` records; `R` and `C` of a format-1 store being recovered).
  const body = sealHolds(key, bytes) ? bytes.subarray(0, bytes.byteLength - SEAL_BYTES) : bytes;
  try {
    // Raw: a format-3 checkpoint's state is a binary field, which decodeValue refuses.
    const v = decodeRaw(body);
    if (typeof v === 'number') return v;
    const seq = v instanceof Map ? v.get('seq') : undefined;
    return typeof seq === 'number' ? seq : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `L/<seq>` after compaction pruned the transition (the public {@link PrunedTransition}): the
 * body is gone; the chain link stays so the chain can still be verified across the gap, and the
 * idempotency id so a retry is still a duplicate.
 */
export type PrunedRecord = PrunedTransition;

/** A log record: a full transition or a pruned stub. */
export type LogRecord = ({ pruned?: undefined } & Transition) | PrunedRecord;

/** Encode any record. */
export const encodeRecord = (record: unknown): Uint8Array => encodeValue(record);

/** Build STORE_CORRUPT for a key. */
export function corrupt(key: Uint8Array, detail: string, stream?: string, cause?: unknown): StateflowError<'STORE_CORRUPT'> {
  const k = describeKey(key);
  const where = stream === undefined ? '' : ` of stream ${stream}`;
  return new StateflowError(
    'STORE_CORRUPT',
    `Stored record ${k}${where} is corrupt (${detail}); run an audit; nothing was rewritten`,
    stream === undefined ? { key: k, detail } : { stream, key: k, detail },
    cause === undefined ? undefined : { cause },
  );
}

function decode(key: Uint8Array, bytes: Uint8Array, stream?: string, frozen = true): JsonValue {
  try {
    return decodeValue(bytes, { frozen });
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHex64 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** Decode a numeric index value (`S`, `I` families; `R` in format 1). */
export function decodeCount(key: Uint8Array, bytes: Uint8Array, stream?: string): number {
  const v = decode(key, bytes, stream);
  if (!isCount(v)) throw corrupt(key, 'index value is not a non-negative integer', stream);
  return v;
}

/** Decode `H/<stream>`. */
export function decodeHead(key: Uint8Array, bytes: Uint8Array, stream: string): HeadRecord {
  const v = decode(key, bytes, stream);
  if (!isJsonObject(v) || !isCount(v.rev) || !isCount(v.seq) || !isCount(v.origin) || v.origin > v.rev) {
    throw corrupt(key, 'head record has the wrong shape', stream);
  }
  return { rev: v.rev, seq: v.seq, origin: v.origin };
}

/** Encode `C/<stream>/<rev>` (sealed; the state as ASCII JSON text). */
export function encodeCheckpoint(key: Uint8Array, record: CheckpointRecord): Uint8Array {
  return encodeSealed(key, { rev: record.rev, seq: record.seq, json: asciiJson(record.state) });
}

/**
 * Decode and verify `C/<stream>/<rev>`: seal, shape and state validity (any format: the state
 * as JSON text, as MessagePack in a format-2 checkpoint, or a paged checkpoint's root, whose
 * `paged` names the pages `paged-checkpoint.ts` reads).
 */
export function decodeCheckpoint(key: Uint8Array, bytes: Uint8Array, stream: string, rev: number): CheckpointRecord {
  if (!sealHolds(key, bytes)) throw corrupt(key, SEAL_DETAIL, stream);
  const body = checkpointBody(key, bytes.subarray(0, bytes.byteLength - SEAL_BYTES), stream);
  if (body.rev !== rev) throw corrupt(key, 'checkpoint record has the wrong shape', stream);
  const problem = stateProblem(stream, body.state);
  if (problem !== null) throw corrupt(key, `checkpoint holds an invalid state: ${problem}`, stream);
  return { rev, seq: body.seq, state: body.state, paged: body.paged };
}

/**
 * The fields of a checkpoint's body (seal not checked): the state parsed from its JSON text
 * (format 3) or decoded from MessagePack (format 2).
 * @throws STORE_CORRUPT when the body does not decode or has the wrong shape
 */
export function checkpointBody(key: Uint8Array, body: Uint8Array, stream: string): CheckpointRecord {
  let fields: Map<string, unknown>;
  let state: JsonValue | undefined;
  let pages: PagedObjectRef[] | null | undefined;
  try {
    fields = decodeFields(body);
    const json = fields.get('json');
    const root = fields.get('root');
    const paged = fields.get('pages');
    state = json instanceof Uint8Array ? parseAsciiJson(json) : fields.has('state') ? toFrozenJson(fields.get('state')) : root instanceof Uint8Array ? parseAsciiJson(root) : undefined;
    if (root instanceof Uint8Array) pages = decodePagedRefs(paged) ?? null;
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
  const rev = fields.get('rev');
  const seq = fields.get('seq');
  if (!isCount(rev) || !isCount(seq) || !isJsonObject(state) || pages === null) throw corrupt(key, 'checkpoint record has the wrong shape', stream);
  return { rev, seq, state, paged: pages };
}

/** Bytes of one page reference in a paged root: its checkpoint revision and number, 6 bytes big-endian each. */
const PAGE_REF_BYTES = 12;

/** A paged root's `pages` field: per large object `{ path, next, refs }`, `refs` the pages' `[rev, n]` packed in binary (a root of 100,000 keys names 2,048 pages). */
export function encodePagedRefs(objects: readonly PagedObjectRef[]): unknown[] {
  return objects.map(({ path, next, pages }) => {
    const refs = Buffer.allocUnsafe(pages.length * PAGE_REF_BYTES);
    pages.forEach(([rev, n], i) => {
      refs.writeUIntBE(rev, i * PAGE_REF_BYTES, 6);
      refs.writeUIntBE(n, i * PAGE_REF_BYTES + 6, 6);
    });
    return { path, next, refs };
  });
}

/** The decoded `pages` field of a paged root ({@link encodePagedRefs}), or `undefined` when it has another shape (a page count that is not a power of two included). */
function decodePagedRefs(raw: unknown): PagedObjectRef[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const out: PagedObjectRef[] = [];
  for (const o of raw as unknown[]) {
    if (!(o instanceof Map)) return undefined;
    const path: unknown = o.get('path');
    const next: unknown = o.get('next');
    const refs: unknown = o.get('refs');
    if (!Array.isArray(path) || path.length === 0 || !path.every((k) => typeof k === 'string') || !isCount(next) || !(refs instanceof Uint8Array)) return undefined;
    const count = refs.byteLength / PAGE_REF_BYTES;
    if (!Number.isInteger(count) || count === 0 || (count & (count - 1)) !== 0) return undefined;
    const b = Buffer.from(refs.buffer, refs.byteOffset, refs.byteLength);
    const pages: [number, number][] = Array.from({ length: count }, (_, i) => [b.readUIntBE(i * PAGE_REF_BYTES, 6), b.readUIntBE(i * PAGE_REF_BYTES + 6, 6)]);
    out.push({ path: path as string[], next, pages });
  }
  return out;
}

/** Decode and verify `R/<stream>/<rev>` (either format): seal and shape. */
export function decodeRevision(key: Uint8Array, bytes: Uint8Array, stream: string, rev: number, options: { frozen?: boolean } = {}): RevisionRecord {
  const v = unseal(key, bytes, stream, options.frozen !== false);
  if (!isJsonObject(v) || !isCount(v.seq) || !isCount(v.base) || v.base > rev || (v.patch !== undefined && !isJsonObject(v.patch))) throw corrupt(key, 'revision index record has the wrong shape', stream);
  return v.patch === undefined ? { seq: v.seq, base: v.base } : { seq: v.seq, base: v.base, patch: v.patch };
}

/**
 * Decode and verify `L/<seq>` (either format): shape, seq matches the key, a format-5 record's
 * seal, and (unless `options.verifyHash` is false) for a full transition the recomputed hash
 * equals the stored hash — what a replay skips, reading only the patches of records their seals
 * vouch for (the audit ties them to the chain). `options.stream` names the stream being read in
 * a STORE_CORRUPT error; `options.frozen: false` leaves the values unfrozen, for a reader that
 * hands none of them out (the audit).
 */
export function decodeLog(key: Uint8Array, bytes: Uint8Array, seq: number, options: { stream?: string; verifyHash?: boolean; frozen?: boolean } = {}): LogRecord {
  const { stream } = options;
  const sealed = isSealedTransition(bytes);
  const v = sealed ? sealedTransition(key, bytes, stream, options.frozen !== false) : decode(key, bytes, stream, options.frozen !== false);
  if (!isJsonObject(v) || v.seq !== seq || !isHex64(v.prevHash) || !isHex64(v.hash) || !Array.isArray(v.changes)) {
    throw corrupt(key, 'log record has the wrong shape', stream);
  }
  if (v.pruned === true) return prunedStub(key, v.changes, { seq, prevHash: v.prevHash, hash: v.hash, id: v.id }, stream);
  if (typeof v.time !== 'string' || (v.id !== undefined && typeof v.id !== 'string') || (v.meta !== undefined && !isJsonObject(v.meta))) {
    throw corrupt(key, 'transition has the wrong shape', stream);
  }
  const changes = v.changes.map((c) => {
    if (!isJsonObject(c) || typeof c.stream !== 'string' || !isCount(c.rev) || c.rev < 1 || !isJsonObject(c.patch)) {
      throw corrupt(key, 'transition change has the wrong shape', stream);
    }
    return { stream: c.stream, rev: c.rev, patch: c.patch };
  });
  const t: Transition = { seq, time: v.time, changes, prevHash: v.prevHash, hash: v.hash };
  if (v.id !== undefined) t.id = v.id;
  if (v.meta !== undefined) t.meta = v.meta;
  if (options.verifyHash !== false && transitionHash(t.prevHash, t) !== t.hash) throw corrupt(key, 'transition does not match its hash', stream);
  return t;
}

/** A pruned log record's stub, shape checked. */
function prunedStub(key: Uint8Array, logged: JsonValue[], v: { seq: number; prevHash: string; hash: string; id: JsonValue | undefined }, stream: string | undefined): PrunedRecord {
  const changes = logged.map((c) => {
    if (!isJsonObject(c) || typeof c.stream !== 'string' || !isCount(c.rev)) throw corrupt(key, 'pruned log record has the wrong shape', stream);
    return { stream: c.stream, rev: c.rev };
  });
  if (v.id !== undefined && typeof v.id !== 'string') throw corrupt(key, 'pruned log record has the wrong shape', stream);
  const stub: PrunedRecord = { pruned: true, seq: v.seq, changes, prevHash: v.prevHash, hash: v.hash };
  if (v.id !== undefined) stub.id = v.id;
  return stub;
}
