/**
 * LevelDB's log format, read by Stateflow itself (README "Fail closed": write-ahead log checks).
 * LevelDB writes its write-ahead log (`NNNNNN.log`) and its MANIFEST in this format, and its own
 * recovery, on open, silently drops what it cannot read — a damaged record and, with it, every
 * later record of the same block, or of the whole log after a bad length. Stateflow therefore
 * reads these files before LevelDB ever opens them, and refuses to open a store whose log is
 * damaged anywhere but in its torn tail.
 *
 * The format (leveldb `doc/log_format.md`): the file is a sequence of 32 KiB blocks; a block holds
 * physical records `checksum u32le | length u16le | type u8 | payload`, where `checksum` is the
 * masked CRC32C of the type byte and the payload; a block's last < 7 bytes are zero padding. A
 * logical record is one FULL physical record, or FIRST, MIDDLE…, LAST across blocks.
 */
import { createRequire } from 'node:module';

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
   * True when the damage has the shape a crash in the middle of the last write leaves: from the
   * damaged record to the end of the file there is nothing but that record cut short, zeros
   * (a file extended but not written), or one record cut short by the end of the file; or the
   * log ends in a logical record missing its last fragments. False otherwise — damage with
   * data after it, which LevelDB's recovery would skip over, losing what the damaged part held.
   */
  tail: boolean;
}

/** What a scan of one log-format file found. */
export interface LogScan {
  /** Every complete logical record before the first damage, in file order. */
  records: LogRecord[];
  /** Bytes up to the end of the last complete logical record. */
  intactBytes: number;
  /** The first damage, or `null` when every byte of the file reads as complete records. */
  damage: LogDamage | null;
}

/** Options of {@link scanLog}. */
export interface ScanOptions {
  /**
   * Keep reading after the first damage, the way LevelDB's recovery does (resynchronising at the
   * next record or block, dropping orphan fragments), and return the records found after it too.
   * For saying what a damaged log held; never for deciding whether a store may open.
   */
  salvage?: boolean;
}

/**
 * Read every logical record of a log-format file and locate its first damage.
 *
 * Cost: one pass over `bytes` with a CRC32C per record (and, after damage, one pass over the rest
 * to tell a torn tail from damage followed by data).
 */
export function scanLog(bytes: Uint8Array, options: ScanOptions = {}): LogScan {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LogRecord[] = [];
  let damage: LogDamage | null = null;
  let intactBytes = 0;
  let fragments: Uint8Array[] | null = null;
  let fragmentStart = 0;
  let pos = 0;
  /** Record damage at `offset`; returns whether to go on reading at `resumeAt`. */
  /** Record damage at `offset` (a tail if only a torn write's leftovers follow `rest`); go on at `resumeAt`? */
  const damaged = (offset: number, reason: string, resumeAt: number, rest = resumeAt): boolean => {
    damage ??= { offset, reason, tail: tornFrom(bytes, view, rest) };
    fragments = null;
    pos = resumeAt;
    return options.salvage === true;
  };
  const complete = (offset: number, data: Uint8Array, end: number): void => {
    records.push({ offset, data });
    if (damage === null) intactBytes = end;
  };
  scan: while (pos < bytes.length) {
    const blockLeft = BLOCK_SIZE - (pos % BLOCK_SIZE);
    if (blockLeft < HEADER_SIZE) {
      const end = Math.min(pos + blockLeft, bytes.length);
      const nonZero = bytes.subarray(pos, end).findIndex((b) => b !== 0);
      if (nonZero >= 0 && !damaged(pos + nonZero, 'non-zero bytes in a block trailer', end)) break;
      pos = end;
      continue;
    }
    if (bytes.length - pos < HEADER_SIZE) {
      damaged(pos, 'truncated record header at end of file', bytes.length, pos);
      break;
    }
    const stored = view.getUint32(pos, true);
    const length = view.getUint16(pos + 4, true);
    const type = bytes[pos + 6] as number;
    const nextBlock = pos + blockLeft;
    const end = pos + HEADER_SIZE + length;
    if (type === RecordType.Zero && length === 0) {
      if (damaged(pos, 'zero-filled record', nextBlock, pos)) continue;
      break;
    }
    if (HEADER_SIZE + length > blockLeft) {
      if (damaged(pos, 'bad record length', nextBlock, pos + HEADER_SIZE)) continue;
      break;
    }
    if (end > bytes.length) {
      damaged(pos, 'truncated record at end of file', bytes.length, pos);
      break;
    }
    const payload = bytes.subarray(pos + HEADER_SIZE, end);
    if (maskedCrc(type, payload) !== stored) {
      if (damaged(pos, 'checksum mismatch', end)) continue;
      break;
    }
    switch (type) {
      case RecordType.Full:
      case RecordType.First:
        if (fragments !== null && !damaged(fragmentStart, 'partial record without end', pos)) break scan;
        if (type === RecordType.Full) complete(pos, payload, end);
        else {
          fragments = [payload];
          fragmentStart = pos;
        }
        break;
      case RecordType.Middle:
      case RecordType.Last: {
        const started: Uint8Array[] | null = fragments;
        if (started === null) {
          if (damaged(pos, 'missing start of fragmented record', end)) continue;
          break scan;
        }
        started.push(payload);
        if (type === RecordType.Last) {
          complete(fragmentStart, Buffer.concat(started), end);
          fragments = null;
        }
        break;
      }
      default:
        if (damaged(pos, `unknown record type ${type}`, end)) continue;
        break scan;
    }
    pos = end;
  }
  if (fragments !== null) damage ??= { offset: fragmentStart, reason: 'partial record without end at end of file', tail: true };
  return { records, intactBytes, damage };
}

/**
 * Whether the bytes from `from` to the end of the file are what a write cut short by a crash
 * leaves: nothing, one physical record (or header) cut short by the end of the file, or zeros.
 */
function tornFrom(bytes: Uint8Array, view: DataView, from: number): boolean {
  if (from >= bytes.length || bytes.length - from < HEADER_SIZE) return true;
  const blockLeft = BLOCK_SIZE - (from % BLOCK_SIZE);
  if (blockLeft >= HEADER_SIZE) {
    const length = view.getUint16(from + 4, true);
    if (HEADER_SIZE + length <= blockLeft && from + HEADER_SIZE + length > bytes.length) return true;
  }
  for (let i = from; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}
