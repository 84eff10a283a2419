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
 * `digest` is the first 8 bytes of the payload's sha256 and the payload is `count u32` followed
 * by `count` operations `type u8 (1 put, 2 del) | keyLength u32 | key | valueLength u32 | value`
 * (a del has no value part). Big-endian throughout.
 *
 * Reading (on open): frames are taken in order while they verify. A frame that does not verify
 * is a torn tail — a process killed in the middle of an append — when no verifiable frame
 * follows it; when one does, the journal is damaged in the middle, which is `STORE_CORRUPT`
 * naming the file and offset, as damage to LevelDB's own log is (nothing is changed).
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
const PUT = 1;
const DEL = 2;

/** The verified frames of a journal file and where they end. */
export interface JournalContents {
  frames: StorageOp[][];
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
export const JOURNAL_DAMAGE = 'a journal frame does not verify and intact frames follow it';

/** What {@link readJournal} found: the frames, damage, the frames after it, the file's size. */
export interface JournalRead extends JournalContents {
  /** Offset of the first frame that does not verify when intact frames follow it, else `null`. */
  damageAt: number | null;
  /** The intact frames after the damage (evidence of what was lost; never replayed). */
  beyond: StorageOp[][];
  bytes: number;
}

/** The journal of one open store directory (see the module comment). */
export class Journal {
  readonly #dir: string;
  #fd: number;
  #end: number;

  private constructor(dir: string, fd: number, end: number) {
    this.#dir = dir;
    this.#fd = fd;
    this.#end = end;
  }

  /**
   * Open (or create) the journal file of `dir` for appending; `bytes` is its current size (from
   * {@link readJournal}), so that {@link Journal.empty} also drops a torn tail.
   * @throws STORE_IO
   */
  static open(dir: string, bytes: number): Journal {
    try {
      return new Journal(dir, openSync(path.join(dir, JOURNAL_FILE), 'a'), bytes);
    } catch (err) {
      throw translateStorageError(err, dir);
    }
  }

  /** Bytes in the journal file. */
  get bytes(): number {
    return this.#end;
  }

  /**
   * Append one commit's operations as a frame, with one synchronous write (into the OS page
   * cache: no fsync). A failed append may leave a torn frame at the tail, which reading ignores.
   * @throws STORE_IO (a full disk: `No space left on device`)
   */
  append(ops: StorageOp[]): void {
    const frame = encodeFrame(ops);
    try {
      let done = 0;
      while (done < frame.byteLength) done += writeSync(this.#fd, frame, done, frame.byteLength - done);
    } catch (err) {
      throw translateStorageError(err, this.#dir);
    }
    this.#end += frame.byteLength;
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
export function encodeFrame(ops: StorageOp[]): Buffer {
  let length = 4;
  for (const op of ops) length += 1 + 4 + op.key.byteLength + (op.type === 'put' ? 4 + op.value.byteLength : 0);
  const frame = Buffer.allocUnsafe(HEADER_BYTES + length);
  let at = HEADER_BYTES;
  at = frame.writeUInt32BE(ops.length, at);
  for (const op of ops) {
    frame[at++] = op.type === 'put' ? PUT : DEL;
    at = frame.writeUInt32BE(op.key.byteLength, at);
    frame.set(op.key, at);
    at += op.key.byteLength;
    if (op.type === 'put') {
      at = frame.writeUInt32BE(op.value.byteLength, at);
      frame.set(op.value, at);
      at += op.value.byteLength;
    }
  }
  frame.writeUInt32BE(MAGIC, 0);
  frame.writeUInt32BE(length, 4);
  digestOf(frame.subarray(HEADER_BYTES)).copy(frame, 8);
  return frame;
}

const digestOf = (payload: Uint8Array): Buffer => hash('sha256', payload, 'buffer').subarray(0, DIGEST_BYTES);

/** The frame at `offset` when it is whole and verifies, else `null`. */
function frameAt(bytes: Buffer, offset: number): { ops: StorageOp[]; next: number } | null {
  if (offset + HEADER_BYTES > bytes.byteLength || bytes.readUInt32BE(offset) !== MAGIC) return null;
  const length = bytes.readUInt32BE(offset + 4);
  const next = offset + HEADER_BYTES + length;
  if (length < 4 || next > bytes.byteLength) return null;
  const payload = bytes.subarray(offset + HEADER_BYTES, next);
  if (!digestOf(payload).equals(bytes.subarray(offset + 8, offset + HEADER_BYTES))) return null;
  const ops = decodeOps(payload);
  return ops === null ? null : { ops, next };
}

function decodeOps(payload: Buffer): StorageOp[] | null {
  const count = payload.readUInt32BE(0);
  const ops: StorageOp[] = [];
  let at = 4;
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
 * Read the frames of a journal file's bytes: every intact frame up to the first that does not
 * verify; `damageAt` is that frame's offset when a verifiable frame follows it (damage rather
 * than a torn tail), else `null`.
 */
export function readFrames(bytes: Buffer): JournalContents & { damageAt: number | null; beyond: StorageOp[][] } {
  const { frames, end } = framesFrom(bytes, 0);
  const magic = Buffer.alloc(4);
  magic.writeUInt32BE(MAGIC, 0);
  for (let at = bytes.indexOf(magic, end + 1); at !== -1; at = bytes.indexOf(magic, at + 1)) {
    if (frameAt(bytes, at) !== null) return { frames, end, damageAt: end, beyond: framesFrom(bytes, at).frames };
  }
  return { frames, end, damageAt: null, beyond: [] };
}

/** The intact frames from `offset` on, up to the first that does not verify. */
function framesFrom(bytes: Buffer, offset: number): JournalContents {
  const frames: StorageOp[][] = [];
  let end = offset;
  for (let frame = frameAt(bytes, end); frame !== null; frame = frameAt(bytes, end)) {
    frames.push(frame.ops);
    end = frame.next;
  }
  return { frames, end };
}
