/**
 * LevelDB's log format, read by Stateflow itself (README "The files are checked before LevelDB
 * opens them"). LevelDB writes its write-ahead log (`NNNNNN.log`) and its MANIFEST in this
 * format, and its own recovery, on open, silently drops what it cannot read — a damaged record
 * and, with it, every later record of the same block, or of the whole log after a bad length. Stateflow therefore
 * reads these files before LevelDB ever opens them; what a damaged log may still be opened with
 * is decided by the crash policy (`crash-policy.ts`) from what this scan finds.
 *
 * The format (leveldb `doc/log_format.md`): the file is a sequence of 32 KiB blocks; a block holds
 * physical records `checksum u32le | length u16le | type u8 | payload`, where `checksum` is the
 * masked CRC32C of the type byte and the payload; a block's last < 7 bytes are zero padding. A
 * logical record is one FULL physical record, or FIRST, MIDDLE…, LAST across blocks.
 */
import { createRequire } from 'node:module';
import { batchHeader } from './write-batch.js';

/** Bytes per block. */
export const BLOCK_SIZE = 32_768;
/** Bytes of a physical record header. */
export const HEADER_SIZE = 7;

const enum RecordType {
  Zero = 0,
  Full = 1,
  First = 2,
  Middle = 3,
  Last = 4,
}

const MASK_DELTA = 0xa282ead8;
const crc32c = (createRequire(import.meta.url)('crc-32/crc32c') as { buf(data: Uint8Array, seed?: number): number }).buf;

/** LevelDB's masked CRC32C (`crc32c::Mask`) of `type ‖ payload`. */
function maskedCrc(type: number, payload: Uint8Array): number {
  const crc = crc32c(payload, crc32c(Uint8Array.of(type))) >>> 0;
  return (((crc >>> 15) | (crc << 17)) + MASK_DELTA) >>> 0;
}

/** One logical record and the byte offset of its first physical record. */
export interface LogRecord {
  offset: number;
  data: Uint8Array;
}

/** The first place where a log stops being readable. */
export interface LogDamage {
  /** Byte offset of the damaged physical record (or of the incomplete logical record's start). */
  offset: number;
  /** What is wrong there, in LevelDB's words where it has them. */
  reason: string;
  /**
   * The file ends inside the record (its header, its payload, or its later fragments are
   * missing): the shape of a write cut short by a crash, when nothing verifies after it. Any
   * other damage (a checksum mismatch over a complete record, a bad length, zeros, stray bytes)
   * is not what a process crash leaves.
   */
  cutByEnd: boolean;
  /**
   * Byte offset of the first physical record after the damage whose checksum holds, or `null`
   * when none does. A crash tears only what is being appended, so a record that verifies after
   * the damage proves the damage is not a crash's. Found by trying every byte offset, not only
   * block starts, so a damaged length cannot hide the records after it.
   */
  verifiedAfter: number | null;
}

/** What a scan of one log-format file found. */
export interface LogScan {
  /** Every complete logical record before the first damage, in file order. */
  records: LogRecord[];
  /** Bytes up to the end of the last complete logical record before the first damage. */
  intactBytes: number;
  /** The first damage, or `null` when every byte of the file reads as complete records. */
  damage: LogDamage | null;
  /**
   * The complete logical records after the first damage, each found by resuming at the next
   * physical record that verifies (fragments whose start was lost are skipped): the evidence of
   * what the damaged part of the log was followed by. Empty without damage.
   */
  later: LogRecord[];
}

/** Where reading stopped at damage, and the offset from which a record that verifies is evidence against a torn tail. */
interface Stop {
  offset: number;
  reason: string;
  cutByEnd: boolean;
  searchFrom: number;
}

/**
 * Read every logical record of a log-format file and locate its first damage.
 *
 * Cost: one pass over `bytes` with a CRC32C per record; after damage, one more pass over the
 * rest trying each byte offset whose type byte and length could start a record.
 */
export function scanLog(bytes: Uint8Array): LogScan {
  const records: LogRecord[] = [];
  const first = readRecords(bytes, 0, records, { afterDamage: false });
  if (first.stop === null) return { records, intactBytes: bytes.length, damage: null, later: [] };
  const damage: LogDamage = { offset: first.stop.offset, reason: first.stop.reason, cutByEnd: first.stop.cutByEnd, verifiedAfter: null };
  const later: LogRecord[] = [];
  let from = first.stop.searchFrom;
  for (;;) {
    const next = nextVerified(bytes, from);
    if (next === null) break;
    damage.verifiedAfter ??= next;
    const { stop } = readRecords(bytes, next, later, { afterDamage: true });
    if (stop === null) break;
    from = Math.max(stop.searchFrom, next + 1);
  }
  return { records, intactBytes: first.intactEnd, damage, later };
}

/**
 * Read logical records from `start` into `out` until the first damage or the end of the file.
 * `afterDamage`: reading resumed at a record that verifies after damage, where fragments whose
 * start is gone are skipped rather than reported.
 * @returns where reading stopped at damage (`null` at a clean end of file), and the end of the
 *   last complete record read
 */
function readRecords(bytes: Uint8Array, start: number, out: LogRecord[], options: { afterDamage: boolean }): { stop: Stop | null; intactEnd: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fragments: Uint8Array[] | null = null;
  let fragmentStart = 0;
  let intactEnd = start;
  let pos = start;
  /** LevelDB's sequence the next batch starts at (`null`: no complete batch read yet). */
  let nextSequence: number | null = null;
  const stopped = (offset: number, reason: string, searchFrom: number, cutByEnd = false) => ({ stop: { offset, reason, cutByEnd, searchFrom }, intactEnd });
  while (pos < bytes.length) {
    const blockLeft = BLOCK_SIZE - (pos % BLOCK_SIZE);
    if (blockLeft < HEADER_SIZE) {
      const end = Math.min(pos + blockLeft, bytes.length);
      const nonZero = bytes.subarray(pos, end).findIndex((b) => b !== 0);
      if (nonZero >= 0) return stopped(pos + nonZero, 'non-zero bytes in a block trailer', end);
      pos = end;
      continue;
    }
    if (bytes.length - pos < HEADER_SIZE) return stopped(pos, 'truncated record header at end of file', bytes.length, true);
    const length = view.getUint16(pos + 4, true);
    const type = bytes[pos + 6] as number;
    const end = pos + HEADER_SIZE + length;
    if (type === RecordType.Zero && length === 0) return stopped(pos, 'zero-filled record', pos + 1);
    if (HEADER_SIZE + length > blockLeft) return stopped(pos, 'bad record length', pos + 1);
    if (end > bytes.length) {
      const torn = tornRecord(bytes, pos, type, fragments !== null, nextSequence, view.getUint32(pos, true));
      return torn === null ? stopped(pos, 'truncated record at end of file', pos + 1, true) : stopped(pos, torn, pos + 1);
    }
    const payload = bytes.subarray(pos + HEADER_SIZE, end);
    if (maskedCrc(type, payload) !== view.getUint32(pos, true)) return stopped(pos, 'checksum mismatch', pos + 1);
    switch (type) {
      case RecordType.Full:
      case RecordType.First:
        // A record that verifies while a fragmented one is open: the open one lost its end.
        if (fragments !== null) return stopped(fragmentStart, 'partial record without end', pos);
        if (type === RecordType.First) {
          fragments = [payload];
          fragmentStart = pos;
        } else {
          out.push({ offset: pos, data: payload });
          intactEnd = end;
          nextSequence = sequenceAfter(payload);
        }
        break;
      case RecordType.Middle:
      case RecordType.Last:
        if (fragments === null) {
          if (!options.afterDamage) return stopped(pos, 'missing start of fragmented record', pos);
          break; // the rest of a record whose start was lost
        }
        fragments.push(payload);
        if (type === RecordType.Last) {
          const data = Buffer.concat(fragments);
          out.push({ offset: fragmentStart, data });
          intactEnd = end;
          nextSequence = sequenceAfter(data);
          fragments = null;
        }
        break;
      default:
        return stopped(pos, `unknown record type ${type}`, end);
    }
    pos = end;
  }
  if (fragments !== null) return stopped(fragmentStart, 'partial record without end at end of file', bytes.length, true);
  return { stop: null, intactEnd };
}

/**
 * Why a record that runs past the end of the file is not a write cut short, or `null` when it
 * may be one: a write cut short holds a prefix of a real record — a record type that fits where
 * it stands (FULL or FIRST, unless a fragmented record is open), a payload that does not verify
 * over the bytes there (a damaged length of a complete record does), and a batch that starts
 * at the sequence the previous batch ended at (stray bytes do not).
 */
function tornRecord(bytes: Uint8Array, pos: number, type: number, inFragment: boolean, nextSequence: number | null, checksum: number): string | null {
  const starts = type === RecordType.Full || type === RecordType.First;
  const continues = type === RecordType.Middle || type === RecordType.Last;
  if (!(inFragment ? continues : starts)) return `bytes after the last record that are no record start (type ${type}): not a write cut short`;
  const present = bytes.subarray(pos + HEADER_SIZE);
  if (maskedCrc(type, present) === checksum) return 'the last record verifies over the bytes present, but its length runs past the end of the file: a damaged length, not a write cut short';
  if (starts && nextSequence !== null && present.length >= 8) {
    const sequence = Number(new DataView(present.buffer, present.byteOffset, 8).getBigUint64(0, true));
    if (sequence !== nextSequence) return `bytes after the last record whose batch would start at LevelDB sequence ${sequence}, not ${nextSequence}: not a write cut short`;
  }
  return null;
}

/** LevelDB's sequence after a batch (its first sequence plus its count), `null` for a record too short to be one. */
function sequenceAfter(batch: Uint8Array): number | null {
  if (batch.length < 12) return null;
  const { sequence, count } = batchHeader(batch);
  return sequence + count;
}

/**
 * The first byte offset at or after `from` where a physical record verifies: a type byte of a
 * record kind, a length that fits the block and the file, and a matching checksum.
 */
export function nextVerified(bytes: Uint8Array, from: number): number | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let pos = from; pos + HEADER_SIZE <= bytes.length; pos++) {
    const blockLeft = BLOCK_SIZE - (pos % BLOCK_SIZE);
    if (blockLeft < HEADER_SIZE) {
      pos += blockLeft - 1;
      continue;
    }
    const type = bytes[pos + 6] as number;
    if (type < RecordType.Full || type > RecordType.Last) continue;
    const length = view.getUint16(pos + 4, true);
    if (HEADER_SIZE + length > blockLeft || pos + HEADER_SIZE + length > bytes.length) continue;
    if (maskedCrc(type, bytes.subarray(pos + HEADER_SIZE, pos + HEADER_SIZE + length)) === view.getUint32(pos, true)) return pos;
  }
  return null;
}
