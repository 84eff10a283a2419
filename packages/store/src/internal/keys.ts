/**
 * Binary key layout (README "Storage layout"). Every key starts with one ASCII family byte;
 * numbers are 8-byte big-endian (the top 2 bytes are zero: seq/rev < 2^48) so byte order is
 * numeric order; stream ids are UTF-8 followed by a 0x00 terminator (stream ids never contain
 * control characters), so one stream's keys form a contiguous range.
 */

/** Key families. */
export const Family = {
  /** `M` + name → meta record (`format`: the format version; `tip`: the log's tip). */
  meta: 0x4d,
  /** `L` + seq → transition (or pruned stub). */
  log: 0x4c,
  /** `R` + stream + 0x00 + rev → {seq, base, patch} of the transition that produced rev (sealed). */
  rev: 0x52,
  /** `S` + stream + 0x00 + seq → rev produced at seq (the seq → rev index). */
  seq: 0x53,
  /** `H` + stream → head {rev, seq, origin}. */
  head: 0x48,
  /** `C` + stream + 0x00 + rev → checkpoint {rev, seq, json} (sealed). */
  checkpoint: 0x43,
  /** `I` + id → seq of the transition accepted with that idempotency id and no principal (the store's owner). */
  id: 0x49,
  /** `P` + stream + 0x00 + rev + n → page n of the paged checkpoints written at rev {json} (sealed; format 4). */
  page: 0x50,
  /**
   * `J` + principal + 0x00 + id → seq of the transition a principal accepted with that id. Ids are
   * the caller's words: scoping them by who wrote keeps one principal's ids from ever meeting
   * another's (a retry finds only its own writer's transition). A principal has no control
   * characters, so its terminator is unambiguous whatever bytes the id holds.
   */
  principalId: 0x4a,
} as const;

const FORMAT_NAME = 'format';
const TIP_NAME = 'tip';

/** Write `n` as 8 bytes big-endian (top two bytes zero) at `offset` (byte by byte: `writeUIntBE` of 6 bytes showed in a publish's profile). */
function writeNum(b: Buffer, offset: number, n: number): void {
  const high = Math.floor(n / 0x1_0000_0000);
  const low = n >>> 0;
  b[offset] = 0;
  b[offset + 1] = 0;
  b[offset + 2] = high >>> 8;
  b[offset + 3] = high & 0xff;
  b[offset + 4] = low >>> 24;
  b[offset + 5] = (low >>> 16) & 0xff;
  b[offset + 6] = (low >>> 8) & 0xff;
  b[offset + 7] = low & 0xff;
}

/** `family` + `n` (8 bytes), in one allocation. */
function familyNum(family: number, n: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = family;
  writeNum(b, 1, n);
  return b;
}

/** `family` + UTF-8 `text`, in one allocation. */
function familyText(family: number, text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const b = Buffer.allocUnsafe(1 + length);
  b[0] = family;
  b.write(text, 1, length, 'utf8');
  return b;
}

/** `family` + UTF-8 `stream` + 0x00 + `n` (8 bytes), in one allocation. */
function streamNum(family: number, stream: string, n: number): Buffer {
  const length = Buffer.byteLength(stream, 'utf8');
  const b = Buffer.allocUnsafe(length + 10);
  b[0] = family;
  b.write(stream, 1, length, 'utf8');
  b[length + 1] = 0;
  writeNum(b, length + 2, n);
  return b;
}

const fam = (f: number): Buffer => Buffer.from([f]);

/** Key of the format-version record. */
export const formatKey = (): Buffer => familyText(Family.meta, FORMAT_NAME);
/** Key of the log's tip record (`M/tip`: last seq and generation, written by every commit). */
export const tipKey = (): Buffer => familyText(Family.meta, TIP_NAME);
/** Key of the transition with global `seq`. */
export const logKey = (seq: number): Buffer => familyNum(Family.log, seq);
/** Key of `stream`'s revision-index entry for `rev`. */
export const revKey = (stream: string, rev: number): Buffer => streamNum(Family.rev, stream, rev);
/** Key of `stream`'s seq-index entry for `seq`. */
export const seqKey = (stream: string, seq: number): Buffer => streamNum(Family.seq, stream, seq);
/** Key of `stream`'s head. */
export const headKey = (stream: string): Buffer => familyText(Family.head, stream);
/** Key of `stream`'s checkpoint at `rev`. */
export const checkpointKey = (stream: string, rev: number): Buffer => streamNum(Family.checkpoint, stream, rev);
/** Key of page `n` written by `stream`'s checkpoint at `rev` (README "Paged checkpoints"). */
export function pageKey(stream: string, rev: number, n: number): Buffer {
  const b = streamNum(Family.page, stream, rev);
  const out = Buffer.allocUnsafe(b.byteLength + 8);
  b.copy(out, 0);
  writeNum(out, b.byteLength, n);
  return out;
}
/** Keys of the pages `stream`'s checkpoints at revisions in `[from, to]` wrote. */
export function pageRange(stream: string, from: number, to: number): KeyRange {
  return streamRange(Family.page, stream, from, to);
}
/** Key of the idempotency record for `id` without a principal (the store's owner, and stores before principals). */
export const idKey = (id: string): Buffer => familyText(Family.id, id);

/** Key of the idempotency record of `id` accepted for `principal`; without one, {@link idKey}. */
export function idRecordKey(id: string, principal: string | undefined): Buffer {
  if (principal === undefined) return idKey(id);
  const scope = Buffer.byteLength(principal, 'utf8');
  const b = Buffer.allocUnsafe(2 + scope + Buffer.byteLength(id, 'utf8'));
  b[0] = Family.principalId;
  b.write(principal, 1, scope, 'utf8');
  b[scope + 1] = 0;
  b.write(id, scope + 2, 'utf8');
  return b;
}

/** Half-open key range `[gte, lt)`. */
export interface KeyRange {
  gte: Buffer;
  lt: Buffer;
}

/** Every key of one family. */
export function familyRange(family: number): KeyRange {
  return { gte: fam(family), lt: fam(family + 1) };
}

/** The family bytes in ascending order. */
const FAMILY_BYTES = Object.values(Family).sort((a, b) => a - b);

/**
 * The key ranges outside every family (before the first, between two, after the last): where an
 * audit looks for keys no family owns, without reading the families again. The last range has
 * no upper bound.
 */
export function gapRanges(): { gte: Buffer; lt?: Buffer }[] {
  const ranges: { gte: Buffer; lt?: Buffer }[] = [];
  let from = 0;
  for (const family of FAMILY_BYTES) {
    if (family > from) ranges.push({ gte: fam(from), lt: fam(family) });
    from = family + 1;
  }
  ranges.push({ gte: fam(from) });
  return ranges;
}

/** Keys of a per-stream numbered family (`rev`, `seq`, `checkpoint`) with number in `[from, to]`. */
export function streamRange(family: number, stream: string, from: number, to: number): KeyRange {
  return { gte: streamNum(family, stream, from), lt: streamNum(family, stream, to + 1) };
}

/** Log keys with seq in `[from, to]`. */
export function logRange(from: number, to: number): KeyRange {
  return { gte: logKey(from), lt: logKey(to + 1) };
}

/** Parsed key, for audit, dumps and error details. */
export type ParsedKey =
  | { family: 'meta'; name: string }
  | { family: 'log'; seq: number }
  | { family: 'rev' | 'seq' | 'checkpoint'; stream: string; n: number }
  | { family: 'page'; stream: string; rev: number; n: number }
  | { family: 'head'; stream: string }
  | { family: 'id'; id: string }
  | { family: 'principalId'; principal: string; id: string }
  | { family: 'unknown' };

/** Parse a stored key (total: unknown shapes give `{family: 'unknown'}`). */
export function parseKey(key: Uint8Array): ParsedKey {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const rest = b.subarray(1);
  switch (b[0]) {
    case Family.meta:
      return { family: 'meta', name: rest.toString('utf8') };
    case Family.log:
      return rest.length === 8 ? { family: 'log', seq: rest.readUIntBE(2, 6) } : { family: 'unknown' };
    case Family.head:
      return { family: 'head', stream: rest.toString('utf8') };
    case Family.id:
      return { family: 'id', id: rest.toString('utf8') };
    case Family.principalId: {
      const zero = rest.indexOf(0);
      if (zero < 1) return { family: 'unknown' };
      return { family: 'principalId', principal: rest.subarray(0, zero).toString('utf8'), id: rest.subarray(zero + 1).toString('utf8') };
    }
    case Family.rev:
    case Family.seq:
    case Family.checkpoint: {
      const zero = rest.length - 9;
      if (zero < 1 || rest[zero] !== 0) return { family: 'unknown' };
      const family = b[0] === Family.rev ? 'rev' : b[0] === Family.seq ? 'seq' : 'checkpoint';
      return { family, stream: rest.subarray(0, zero).toString('utf8'), n: rest.readUIntBE(zero + 3, 6) };
    }
    case Family.page: {
      const zero = rest.length - 17;
      if (zero < 1 || rest[zero] !== 0) return { family: 'unknown' };
      return { family: 'page', stream: rest.subarray(0, zero).toString('utf8'), rev: rest.readUIntBE(zero + 3, 6), n: rest.readUIntBE(zero + 11, 6) };
    }
    default:
      return { family: 'unknown' };
  }
}

/** Human-readable key text used in error details and audit problems, e.g. `L/42`, `R/global/7`. */
export function describeKey(key: Uint8Array): string {
  const k = parseKey(key);
  switch (k.family) {
    case 'meta':
      return `M/${k.name}`;
    case 'log':
      return `L/${k.seq}`;
    case 'rev':
      return `R/${k.stream}/${k.n}`;
    case 'seq':
      return `S/${k.stream}/${k.n}`;
    case 'checkpoint':
      return `C/${k.stream}/${k.n}`;
    case 'page':
      return `P/${k.stream}/${k.rev}/${k.n}`;
    case 'head':
      return `H/${k.stream}`;
    case 'id':
      return `I/${k.id}`;
    case 'principalId':
      return `P/${k.principal}/${k.id}`;
    case 'unknown':
      return `?/${Buffer.from(key).toString('hex')}`;
  }
}
