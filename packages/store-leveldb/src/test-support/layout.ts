/**
 * The store's record layout as `@stateflow/store`'s README "Storage layout" documents it, read
 * and written by this package's tests from outside the store (keys as bytes, values as
 * MessagePack, sealed records as `body ‖ sha256(key ‖ body)`). It shares no code with the store:
 * a test that reads through it checks the documented layout, not the store's own decoder.
 */
import { createHash } from 'node:crypto';
import { Packr } from 'msgpackr';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false, int64AsType: 'number', variableMapSize: true });

/** Bytes of a sealed record's seal. */
export const SEAL_BYTES = 32;

/** `M` `format`: the format-version record. */
export const formatKey = (): Buffer => Buffer.from('Mformat', 'latin1');

/** `L` + seq (8 bytes big-endian, the top two zero): a transition. */
export function logKey(seq: number): Buffer {
  const key = Buffer.alloc(9);
  key[0] = 0x4c;
  key.writeUIntBE(seq, 3, 6);
  return key;
}

/** `R` + stream + 0x00 + rev (8 bytes big-endian): the revision-index entry of `rev`. */
export function revKey(stream: string, rev: number): Buffer {
  const number = Buffer.alloc(8);
  number.writeUIntBE(rev, 2, 6);
  return Buffer.concat([Buffer.from('R', 'latin1'), Buffer.from(stream, 'utf8'), Buffer.from([0]), number]);
}

/** Every key of the family with letter `family` (`'C'`: checkpoints). */
export function familyRange(family: string): { gte: Buffer; lt: Buffer } {
  const byte = family.charCodeAt(0);
  return { gte: Buffer.from([byte]), lt: Buffer.from([byte + 1]) };
}

/** A per-stream numbered key (`R`, `S`, `C`: family letter + stream + 0x00 + 8-byte number), or `null` for any other. */
export function streamKey(key: Uint8Array): { family: string; stream: string; n: number } | null {
  const bytes = Buffer.from(key);
  const family = String.fromCharCode(bytes[0] ?? 0);
  const zero = bytes.length - 9;
  if (!['R', 'S', 'C'].includes(family) || zero < 2 || bytes[zero] !== 0) return null;
  return { family, stream: bytes.subarray(1, zero).toString('utf8'), n: bytes.readUIntBE(zero + 3, 6) };
}

/** A MessagePack value, maps as plain objects (binary fields as bytes). */
export const decodeRecord = (bytes: Uint8Array): unknown => packr.unpack(bytes);

/** A value as MessagePack. */
export const encodeRecord = (value: unknown): Uint8Array => packr.pack(value);

/** Whether a sealed record's last 32 bytes are `sha256(key ‖ body)`. */
export function sealHolds(key: Uint8Array, value: Uint8Array): boolean {
  if (value.byteLength <= SEAL_BYTES) return false;
  const body = value.subarray(0, value.byteLength - SEAL_BYTES);
  return createHash('sha256').update(key).update(body).digest().equals(value.subarray(value.byteLength - SEAL_BYTES));
}

/** The body of a sealed record, decoded (seal not checked). */
export const sealedBody = (value: Uint8Array): unknown => decodeRecord(value.subarray(0, value.byteLength - SEAL_BYTES));

/**
 * A format-5 transition record (`L`): 0xc1 ‖ prevHash (32 bytes) ‖ hash (32 bytes) ‖ the JSON
 * text of the body (UTF-8) ‖ sha256(key ‖ all before), read by the documented layout; `null`
 * for a record of another layout (a format-4 MessagePack transition, a pruned stub).
 */
export function transitionRecord(key: Uint8Array, value: Uint8Array): { prevHash: string; hash: string; body: Record<string, unknown>; sealed: boolean } | null {
  const bytes = Buffer.from(value);
  if (bytes[0] !== 0xc1) return null;
  const text = bytes.subarray(65, bytes.byteLength - SEAL_BYTES).toString('utf8');
  return { prevHash: bytes.toString('hex', 1, 33), hash: bytes.toString('hex', 33, 65), body: JSON.parse(text) as Record<string, unknown>, sealed: sealHolds(key, value) };
}
