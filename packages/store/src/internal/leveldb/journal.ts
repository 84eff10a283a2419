/**
 * The journal of a LevelDB store (README "Durability contract": buffered commits): a file in the
 * store directory where a buffered commit's operations are appended with one synchronous
 * `write(2)` before the commit is acknowledged, so the acknowledgement does not wait for a round
 * trip to LevelDB's thread pool (about 55 µs a write on these machines, against about 1 µs for
 * the append). LevelDB receives the same operations in the background, in order; once it holds
 * every journaled commit the journal is emptied. An acknowledged buffered commit is therefore in
 * the OS — in the journal or in LevelDB's own log — exactly as a buffered LevelDB write was:
 * it survives a process crash, not necessarily an OS crash. `fsync` commits do not use it.
 *
 * File format: a sequence of frames `MAGIC u32 | length u32 | digest (8 bytes) | payload`, where
 * `digest` is the first 8 bytes of the payload's sha256 and the payload is `number` (8 bytes:
 * frames are numbered 1, 2, 3, … for the life of the store, across emptyings, skipping the
 * numbers synced commits take), `count u32` and
 * `count` operations `type u8 (1 put, 2 del) | keyLength u32 | key | valueLength u32 | value`
 * (a del has no value part). Big-endian throughout. Every LevelDB batch of journaled commits
 * also writes `M/journal` `{ frame }`, the number of the last frame it holds, so open replays
 * exactly the frames LevelDB does not have — never an older frame over a newer commit.
 *
 * Reading (on open) is strict and never searches: frames are taken in order; the file may end
 * in a torn frame (a process killed in the middle of an append: its header incomplete or its
 * length running past the end of the file) or in zeros, which are dropped — such a frame was
 * never acknowledged. A whole frame that does not verify, a number not above the one before, or
 * other bytes are damage: `STORE_CORRUPT` naming the file and offset (nothing is changed), as damage
 * to LevelDB's own log is.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { hash } from 'node:crypto';
import path from 'node:path';
import type { StorageOp } from '../../storage.js';
import { fileCorrupt } from './file-check.js';
import { translateStorageError } from '../level-errors.js';

/** The journal's file name in a store directory. */
export const JOURNAL_FILE = 'stateflow-journal';

const MAGIC = 0x53464a31; // "SFJ1"
const HEADER_BYTES = 16;
const DIGEST_BYTES = 8;
/** Bytes of the payload before the operations: the frame number (8) and the count (4). */
const PAYLOAD_HEAD_BYTES = 12;
const PUT = 1;
const DEL = 2;

/** One journaled commit. */
export interface JournalFrame {
  number: number;
  ops: StorageOp[];
}

/** The verified frames of a journal file and where they end. */
export interface JournalContents {
  frames: JournalFrame[];
  /** Byte offset after the last intact frame. */
  end: number;
}

/**
 * Read the journal of `dir` (nothing is changed; no file: no frames).
 * @param options.tolerateDamage return the intact frames before damage instead of throwing (a copy being recovered)
 * @throws STORE_CORRUPT `{ file, offset, detail }` for damage before the tail; STORE_IO when the file cannot be read
 */
export function readJournal(dir: string, options: { tolerateDamage?: boolean } = {}): JournalRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(dir, JOURNAL_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return { frames: [], end: 0, damageAt: null, beyond: [], bytes: 0 };
    throw translateStorageError(err, dir);
  }
  const contents = readFrames(bytes);
  if (contents.damageAt !== null && options.tolerateDamage !== true) {
    throw fileCorrupt(dir, JOURNAL_FILE, contents.damageAt, JOURNAL_DAMAGE);
  }
  return { ...contents, bytes: bytes.byteLength };
}

/** The detail of damage to a journal before its tail. */
export const JOURNAL_DAMAGE = 'a journal frame does not verify';

/** What {@link readJournal} found: the frames, damage, the frames after it, the file's size. */
export interface JournalRead extends JournalContents {
  /** Offset of the first frame that does not verify when intact frames follow it, else `null`. */
  damageAt: number | null;
  /** The intact frames after the damage, when its frame's length can be trusted (evidence of what was lost; never replayed). */
  beyond: JournalFrame[];
  bytes: number;
}

/** The journal of one open store directory (see the module comment). */
export class Journal {
  readonly #dir: string;
  #fd: number;
  #end: number;
  #next: number;

  private constructor(dir: string, fd: number, end: number, next: number) {
    this.#dir = dir;
    this.#fd = fd;
    this.#end = end;
    this.#next = next;
  }

  /**
   * Open (or create) the journal file of `dir` for appending; `bytes` is its current size (from
   * {@link readJournal}), so that {@link Journal.empty} also drops a torn tail; `next` the
   * number of the next frame.
   * @throws STORE_IO
   */
  static open(dir: string, bytes: number, next: number): Journal {
    try {
      return new Journal(dir, openSync(path.join(dir, JOURNAL_FILE), 'a'), bytes, next);
    } catch (err) {
      throw translateStorageError(err, dir);
    }
  }

  /** Take the next frame number without a frame (a synced commit's, written as the mark). */
  reserve(): number {
    return this.#next++;
  }

  /** Bytes in the journal file. */
  get bytes(): number {
    return this.#end;
  }

  /**
   * Append one commit's operations as a frame, with one synchronous write (into the OS page
   * cache: no fsync). A failed append may leave a torn frame at the tail, which reading ignores.
   * @returns the frame's number
   * @throws STORE_IO (a full disk: `No space left on device`)
   */
  append(ops: StorageOp[]): number {
    const number = this.#next;
    const frame = encodeFrame({ number, ops });
    try {
      let done = 0;
      while (done < frame.byteLength) done += writeSync(this.#fd, frame, done, frame.byteLength - done);
    } catch (err) {
      throw translateStorageError(err, this.#dir);
    }
    this.#end += frame.byteLength;
    this.#next++;
    return number;
  }

  /**
   * Drop every frame: only once LevelDB holds each of them (it then has them in the OS as well).
   * The truncation is synced (once per emptying, not per frame), so that after an OS crash old
   * frames cannot come back behind newer commits and be replayed over them.
   * @throws STORE_IO
   */
  empty(): void {
    if (this.#end === 0) return;
    try {
      ftruncateSync(this.#fd, 0);
      fsyncSync(this.#fd);
    } catch (err) {
      throw translateStorageError(err, this.#dir);
    }
    this.#end = 0;
  }

  /** Close the file (its frames stay for the next open when it was not emptied). */
  close(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    this.#fd = -1;
  }
}

/** Encode one frame (see the module comment). */
export function encodeFrame(frame: JournalFrame): Buffer {
  const { number, ops } = frame;
  let length = PAYLOAD_HEAD_BYTES;
  for (const op of ops) length += 1 + 4 + op.key.byteLength + (op.type === 'put' ? 4 + op.value.byteLength : 0);
  const bytes = Buffer.allocUnsafe(HEADER_BYTES + length);
  let at = HEADER_BYTES;
  bytes.writeUInt16BE(0, at);
  bytes.writeUIntBE(number, at + 2, 6);
  at = bytes.writeUInt32BE(ops.length, at + 8);
  for (const op of ops) {
    bytes[at++] = op.type === 'put' ? PUT : DEL;
    at = bytes.writeUInt32BE(op.key.byteLength, at);
    bytes.set(op.key, at);
    at += op.key.byteLength;
    if (op.type === 'put') {
      at = bytes.writeUInt32BE(op.value.byteLength, at);
      bytes.set(op.value, at);
      at += op.value.byteLength;
    }
  }
  bytes.writeUInt32BE(MAGIC, 0);
  bytes.writeUInt32BE(length, 4);
  digestOf(bytes.subarray(HEADER_BYTES)).copy(bytes, 8);
  return bytes;
}

const digestOf = (payload: Uint8Array): Buffer => hash('sha256', payload, 'buffer').subarray(0, DIGEST_BYTES);

/** What is at `offset`: a verified frame, the torn or zeroed tail, or damage. */
type Read = { kind: 'frame'; frame: JournalFrame; next: number } | { kind: 'tail' } | { kind: 'damage'; next: number | null };

function readAt(bytes: Buffer, offset: number): Read {
  const rest = bytes.subarray(offset);
  const zeros = (): boolean => rest.every((b) => b === 0);
  if (rest.byteLength < HEADER_BYTES) return zeros() || MAGIC_BYTES.subarray(0, rest.byteLength).equals(rest.subarray(0, MAGIC_BYTES.byteLength)) ? { kind: 'tail' } : { kind: 'damage', next: null };
  if (rest.readUInt32BE(0) !== MAGIC) return zeros() ? { kind: 'tail' } : { kind: 'damage', next: null };
  const length = rest.readUInt32BE(4);
  const next = offset + HEADER_BYTES + length;
  if (next > bytes.byteLength) return { kind: 'tail' };
  const payload = rest.subarray(HEADER_BYTES, HEADER_BYTES + length);
  if (length < PAYLOAD_HEAD_BYTES || !digestOf(payload).equals(rest.subarray(8, HEADER_BYTES))) return { kind: 'damage', next };
  const ops = decodeOps(payload);
  if (ops === null) return { kind: 'damage', next };
  return { kind: 'frame', frame: { number: payload.readUIntBE(2, 6), ops }, next };
}

const MAGIC_BYTES = Buffer.from([0x53, 0x46, 0x4a, 0x31]);

function decodeOps(payload: Buffer): StorageOp[] | null {
  const count = payload.readUInt32BE(8);
  const ops: StorageOp[] = [];
  let at = PAYLOAD_HEAD_BYTES;
  const take = (n: number): Buffer | null => {
    if (at + n > payload.byteLength) return null;
    const part = payload.subarray(at, at + n);
    at += n;
    return part;
  };
  const length = (): number | null => (at + 4 > payload.byteLength ? null : payload.readUInt32BE((at += 4) - 4));
  for (let i = 0; i < count; i++) {
    const type = at < payload.byteLength ? payload[at++] : undefined;
    const keyLength = length();
    const key = keyLength === null ? null : take(keyLength);
    if (key === null) return null;
    if (type === DEL) {
      ops.push({ type: 'del', key: Buffer.from(key) });
      continue;
    }
    const valueLength = type === PUT ? length() : null;
    const value = valueLength === null ? null : take(valueLength);
    if (value === null) return null;
    ops.push({ type: 'put', key: Buffer.from(key), value: Buffer.from(value) });
  }
  return at === payload.byteLength ? ops : null;
}

/**
 * Read the frames of a journal file's bytes in order (see the module comment): every verified
 * frame up to the end, a torn or zeroed tail, or damage — `damageAt` is then its offset, and
 * `beyond` the verified frames after it when the damaged frame's length can be trusted.
 */
export function readFrames(bytes: Buffer): JournalContents & { damageAt: number | null; beyond: JournalFrame[] } {
  const { frames, end, stop } = framesFrom(bytes, 0);
  if (stop.kind !== 'damage') return { frames, end, damageAt: null, beyond: [] };
  return { frames, end, damageAt: end, beyond: stop.next === null ? [] : framesFrom(bytes, stop.next).frames };
}

/** The frames from `offset` on, numbered in sequence, and what stopped the reading. */
function framesFrom(bytes: Buffer, offset: number): JournalContents & { stop: Exclude<Read, { kind: 'frame' }> } {
  const frames: JournalFrame[] = [];
  let end = offset;
  for (;;) {
    if (end === bytes.byteLength) return { frames, end, stop: { kind: 'tail' } };
    const read = readAt(bytes, end);
    if (read.kind !== 'frame') return { frames, end, stop: read };
    // Numbers rise; they may skip the numbers synced commits took (those have no frame).
    const last = frames.at(-1);
    if (last !== undefined && read.frame.number <= last.number) return { frames, end, stop: { kind: 'damage', next: read.next } };
    frames.push(read.frame);
    end = read.next;
  }
}
