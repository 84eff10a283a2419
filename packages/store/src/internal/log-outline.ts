/**
 * A log record's outline: what compaction and a retention run need of a transition — its seq,
 * time, id, chain hashes and, per change, the stream, the revision and the UTF-8 bytes of the net
 * patch's JSON — read without materialising the patches. A format-5 record (`records.ts`,
 * `encodeTransition`) is checked against its seal, then its JSON text is scanned: the
 * patches are skipped over, never parsed. Older records (MessagePack) are decoded whole.
 */
import type { JsonObject } from '@stateflow/core';
import type { StorageReader } from '../storage.js';
import type { TransitionOutline } from '../types.js';
import { logRecordsIn } from './log-reads.js';
import { corrupt, decodeLog, isSealedTransition, SEAL_BYTES, SEAL_DETAIL, sealHolds } from './records.js';

/** One change of an outlined transition. */
export interface ChangeOutline {
  stream: string;
  rev: number;
  /** UTF-8 bytes of its net patch as JSON (0 in a pruned stub). */
  bytes: number;
}

/** The outline of one log record (see the module comment). */
export interface LogOutline {
  seq: number;
  pruned: boolean;
  /** Acceptance time, ISO 8601 (`''` in a pruned stub). */
  time: string;
  id?: string | undefined;
  prevHash: string;
  hash: string;
  changes: ChangeOutline[];
}

/** Bytes of the tag and the two chain hashes before a format-5 transition's JSON text. */
const TEXT_AT = 1 + 32 + 32;

/**
 * The outline of `L/<seq>` (either format), fail closed like {@link decodeLog}: a format-5
 * record's seal and the shape of the fields outlined are checked.
 * @throws STORE_CORRUPT naming the key (and `stream`)
 */
export function outlineLog(key: Uint8Array, bytes: Uint8Array, seq: number, stream?: string): LogOutline {
  if (!isSealedTransition(bytes)) return outlineDecoded(decodeLog(key, bytes, seq, { stream }));
  if (bytes.byteLength <= TEXT_AT + SEAL_BYTES || !sealHolds(key, bytes)) throw corrupt(key, SEAL_DETAIL, stream);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const outline = new TextScan(b, TEXT_AT, b.byteLength - SEAL_BYTES).body();
  if (outline === undefined || outline.seq !== seq) throw corrupt(key, 'log record has the wrong shape', stream);
  return { ...outline, pruned: false, prevHash: b.toString('hex', 1, 33), hash: b.toString('hex', 33, TEXT_AT) };
}

/** The outlines of the retained (not pruned) transitions with seq `from..to`, in seq order. @throws STORE_CORRUPT */
export async function* retainedOutlines(from: number, to: number, reader: StorageReader): AsyncGenerator<TransitionOutline> {
  for await (const o of logRecordsIn(from, to, reader, outlineLog)) if (!o.pruned) yield { seq: o.seq, time: o.time, changes: o.changes };
}

function outlineDecoded(record: ReturnType<typeof decodeLog>): LogOutline {
  const { seq, prevHash, hash, id } = record;
  if (record.pruned) return { seq, pruned: true, time: '', id, prevHash, hash, changes: record.changes.map(({ stream, rev }) => ({ stream, rev, bytes: 0 })) };
  const changes = record.changes.map(({ stream, rev, patch }) => ({ stream, rev, bytes: patchBytes(patch) }));
  return { seq, pruned: false, time: record.time, id, prevHash, hash, changes };
}

/** UTF-8 bytes of a patch as JSON. */
export const patchBytes = (patch: JsonObject): number => Buffer.byteLength(JSON.stringify(patch), 'utf8');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Thrown inside a scan at text of the wrong shape; turned into STORE_CORRUPT by the caller. */
class WrongShape extends Error {}

/**
 * A scan of a transition body's JSON text `{ seq, time, id?, meta?, changes }` (any key order),
 * as written by `JSON.stringify`: the text is sealed, so it is well-formed JSON unless damaged,
 * and a damaged one fails the seal first; the scan still refuses what it does not expect.
 */
class TextScan {
  #at: number;

  constructor(
    private readonly b: Buffer,
    at: number,
    private readonly end: number,
  ) {
    this.#at = at;
  }

  /** The body's outlined fields, `undefined` when the text has the wrong shape. */
  body(): Omit<LogOutline, 'pruned' | 'prevHash' | 'hash'> | undefined {
    try {
      const out: { seq?: number; time?: string; id?: string; changes?: ChangeOutline[] } = {};
      this.#members((key) => {
        if (key === 'seq') out.seq = this.#number();
        else if (key === 'time') out.time = this.#string();
        else if (key === 'id') out.id = this.#string();
        else if (key === 'changes') out.changes = this.#changes();
        else this.#skip();
      });
      this.#ws();
      if (this.#at !== this.end || out.seq === undefined || out.time === undefined || out.changes === undefined) return undefined;
      return { seq: out.seq, time: out.time, id: out.id, changes: out.changes };
    } catch (err) {
      if (err instanceof WrongShape || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  #changes(): ChangeOutline[] {
    const changes: ChangeOutline[] = [];
    this.#expect(OPEN_ARRAY);
    if (this.#peek() === CLOSE_ARRAY) this.#at++;
    else
      for (;;) {
        changes.push(this.#change());
        if (this.#next() === CLOSE_ARRAY) break;
        this.#back(COMMA);
      }
    return changes;
  }

  #change(): ChangeOutline {
    let stream: string | undefined;
    let rev: number | undefined;
    let bytes: number | undefined;
    this.#members((key) => {
      if (key === 'stream') stream = this.#string();
      else if (key === 'rev') rev = this.#number();
      else if (key === 'patch') {
        this.#ws();
        if (this.b[this.#at] !== OPEN_OBJECT) throw new WrongShape();
        const from = this.#at;
        this.#skip();
        bytes = this.#at - from;
      } else this.#skip();
    });
    if (stream === undefined || rev === undefined || !Number.isSafeInteger(rev) || rev < 1 || bytes === undefined) throw new WrongShape();
    return { stream, rev, bytes };
  }

  /** An object's members, `member(key)` reading each value. */
  #members(member: (key: string) => void): void {
    this.#expect(OPEN_OBJECT);
    if (this.#peek() === CLOSE_OBJECT) {
      this.#at++;
      return;
    }
    for (;;) {
      const key = this.#string();
      this.#expect(COLON);
      member(key);
      if (this.#next() === CLOSE_OBJECT) return;
      this.#back(COMMA);
    }
  }

  #string(): string {
    this.#ws();
    const from = this.#at;
    this.#skipString();
    const raw = this.b.toString('utf8', from, this.#at);
    return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  #number(): number {
    this.#ws();
    const from = this.#at;
    this.#skipScalar();
    const n = Number(this.b.toString('latin1', from, this.#at));
    if (!Number.isSafeInteger(n) || n < 0) throw new WrongShape();
    return n;
  }

  /** Past one JSON value of any kind, without building it. */
  #skip(): void {
    this.#ws();
    const c = this.b[this.#at];
    if (c === QUOTE) return this.#skipString();
    if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) return this.#skipScalar();
    let depth = 0;
    do {
      const d = this.b[this.#at];
      if (d === QUOTE) {
        this.#skipString();
        continue;
      }
      if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) depth--;
      this.#at++;
    } while (depth > 0 && this.#at < this.end);
    if (depth !== 0) throw new WrongShape();
  }

  #skipString(): void {
    if (this.b[this.#at] !== QUOTE) throw new WrongShape();
    for (let i = this.#at + 1; i < this.end; i++) {
      const c = this.b[i];
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        this.#at = i + 1;
        return;
      }
    }
    throw new WrongShape();
  }

  #skipScalar(): void {
    const from = this.#at;
    while (this.#at < this.end) {
      const c = this.b[this.#at] as number;
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c <= 0x20) break;
      this.#at++;
    }
    if (this.#at === from) throw new WrongShape();
  }

  #ws(): void {
    while (this.#at < this.end && (this.b[this.#at] as number) <= 0x20) this.#at++;
  }

  #peek(): number | undefined {
    this.#ws();
    return this.b[this.#at];
  }

  /** The next byte, consumed. */
  #next(): number | undefined {
    this.#ws();
    return this.#at < this.end ? this.b[this.#at++] : undefined;
  }

  /** Check that the byte just consumed was `c`. */
  #back(c: number): void {
    if (this.b[this.#at - 1] !== c) throw new WrongShape();
  }

  #expect(c: number): void {
    if (this.#next() !== c) throw new WrongShape();
  }
}
