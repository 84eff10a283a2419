/**
 * Stored record shapes and their fail-closed decoders. A value that does not decode, has the
 * wrong shape, or (for transitions and checkpoints) does not match its own hash becomes
 * STORE_CORRUPT naming the key (and the stream being read, when there is one).
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Transition } from '../types.js';
import { decodeValue, encodeValue } from './codec.js';
import { stateHash, transitionHash } from './hash.js';
import { describeKey } from './keys.js';
import { stateProblem } from './validate.js';

/** Format identity written on creation (`M/format`). */
export const FORMAT = { format: 'stateflow-store', version: 1 } as const;

/** `H/<stream>`: a stream's head. */
export interface HeadRecord {
  rev: number;
  seq: number;
  origin: number;
}

/** `C/<stream>/<rev>`: a full state snapshot with its hash. */
export interface CheckpointRecord {
  rev: number;
  seq: number;
  state: JsonObject;
  stateHash: string;
}

/**
 * `L/<seq>` after compaction pruned the transition: the body is gone, the chain link stays so the
 * chain can still be verified across the gap.
 */
export interface PrunedRecord {
  pruned: true;
  seq: number;
  changes: { stream: string; rev: number }[];
  prevHash: string;
  hash: string;
}

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

function decode(key: Uint8Array, bytes: Uint8Array, stream?: string): JsonValue {
  try {
    return decodeValue(bytes);
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHex64 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** Decode a numeric index value (`R`, `S`, `I` families). */
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

/**
 * Decode and verify `C/<stream>/<rev>`: shape, state validity and (unless `options.verifyHash`
 * is false) the state hash.
 */
export function decodeCheckpoint(key: Uint8Array, bytes: Uint8Array, stream: string, rev: number, options: { verifyHash?: boolean } = {}): CheckpointRecord {
  const v = decode(key, bytes, stream);
  if (!isJsonObject(v) || v.rev !== rev || !isCount(v.seq) || !isJsonObject(v.state) || !isHex64(v.stateHash)) {
    throw corrupt(key, 'checkpoint record has the wrong shape', stream);
  }
  const problem = stateProblem(stream, v.state);
  if (problem !== null) throw corrupt(key, `checkpoint holds an invalid state: ${problem}`, stream);
  if (options.verifyHash !== false && stateHash(v.state) !== v.stateHash) throw corrupt(key, 'checkpoint state does not match its stateHash', stream);
  return { rev, seq: v.seq, state: v.state, stateHash: v.stateHash };
}

/**
 * Decode and verify `L/<seq>`: shape, seq matches the key, and (unless `options.verifyHash` is
 * false) for full transitions the recomputed hash equals the stored hash. `options.stream` names
 * the stream being read in a STORE_CORRUPT error.
 */
export function decodeLog(key: Uint8Array, bytes: Uint8Array, seq: number, options: { stream?: string; verifyHash?: boolean } = {}): LogRecord {
  const { stream } = options;
  const v = decode(key, bytes, stream);
  if (!isJsonObject(v) || v.seq !== seq || !isHex64(v.prevHash) || !isHex64(v.hash) || !Array.isArray(v.changes)) {
    throw corrupt(key, 'log record has the wrong shape', stream);
  }
  if (v.pruned === true) {
    const changes = v.changes.map((c) => {
      if (!isJsonObject(c) || typeof c.stream !== 'string' || !isCount(c.rev)) throw corrupt(key, 'pruned log record has the wrong shape', stream);
      return { stream: c.stream, rev: c.rev };
    });
    return { pruned: true, seq, changes, prevHash: v.prevHash, hash: v.hash };
  }
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
