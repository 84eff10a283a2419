/**
 * The records of a paged checkpoint (README "Paged checkpoints"), each sealed under its key:
 * - the root `C/<stream>/<rev>`: the state with each large object left out as `{}`, and per
 *   large object its directories — `{ rev, seq, root, dirs: [{ path, next, pages, refs }] }`,
 *   `pages` the object's page count, `refs` its directories as packed `[rev, n]` of
 *   `P/<stream>/<rev>/<n>`;
 * - a directory `P/<stream>/<rev>/<n>`: `{ refs }`, the packed references of up to
 *   {@link DIRECTORY_PAGES} consecutive pages of one object;
 * - a page `P/<stream>/<rev>/<n>`: `{ json }`, the `[key, ordinal, value]` members of one object
 *   whose keys hash to it, as ASCII JSON text.
 * A root of the first paged layout (format 4 as first written: `{ rev, seq, root, pages }`, its
 * refs naming every page) is decoded by `records.ts` and still read; a root is told apart by
 * its field, `dirs` or `pages`, so both live in one store.
 */
import type { JsonObject, JsonValue } from '@stateflow/core';
import { asciiJson, decodeFields, parseAsciiJson } from './codec.js';
import { SEAL_BYTES, SEAL_DETAIL, checkpointBody, corrupt, encodeSealed, sealHolds } from './records.js';
import type { CheckpointRecord } from './records.js';
import { stateProblem } from './validate.js';

/** Pages one directory names (the last directory of an object of fewer pages names them all). */
export const DIRECTORY_PAGES = 64;

/** Where a page or directory is stored: `P/<stream>/<rev>/<n>`. */
export type PageRef = readonly [rev: number, n: number];

/**
 * A large object as a checkpoint root names it: its key path, the next ordinal of an appended
 * key, its page count (a power of two), and `refs` — its directories (`directories: true`), or
 * in a root of the first layout its pages themselves.
 */
export interface RootObject {
  readonly path: readonly string[];
  readonly next: number;
  readonly count: number;
  readonly directories: boolean;
  readonly refs: Refs;
}

/** A decoded checkpoint root: its record (the state with the large objects `{}` when paged) and its large objects (none for a checkpoint in one record). */
export interface CheckpointRoot {
  readonly record: CheckpointRecord;
  readonly objects: readonly RootObject[];
}

/** Bytes of one packed reference: revision and number, 6 bytes big-endian each. */
const REF_BYTES = 12;

/** Write `ref` as packed reference `i` of `out`. */
export function writeRef(out: Buffer, i: number, [rev, n]: PageRef): void {
  out.writeUInt16BE(Math.floor(rev / 2 ** 32), i * REF_BYTES);
  out.writeUInt32BE(rev % 2 ** 32, i * REF_BYTES + 2);
  out.writeUInt16BE(Math.floor(n / 2 ** 32), i * REF_BYTES + 6);
  out.writeUInt32BE(n % 2 ** 32, i * REF_BYTES + 8);
}

/** `refs` packed, {@link REF_BYTES} each. */
export function packRefs(refs: readonly PageRef[]): Buffer {
  const out = Buffer.allocUnsafe(refs.length * REF_BYTES);
  refs.forEach((ref, i) => writeRef(out, i, ref));
  return out;
}

/** References as a root or directory names them: how many, the `i`-th, all of them. */
export interface Refs {
  readonly length: number;
  at(i: number): PageRef;
  list(): PageRef[];
}

/** Packed references, each decoded when asked for (a path read wants one of a root's and one of a directory's). */
export class PackedRefs implements Refs {
  readonly length: number;
  constructor(readonly bytes: Buffer) {
    this.length = bytes.byteLength / REF_BYTES;
  }

  at(i: number): PageRef {
    const b = this.bytes;
    const o = i * REF_BYTES;
    return [b.readUInt16BE(o) * 2 ** 32 + b.readUInt32BE(o + 2), b.readUInt16BE(o + 6) * 2 ** 32 + b.readUInt32BE(o + 8)];
  }

  list(): PageRef[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}

/** The references packed in `raw`, or `undefined` when it is not a whole number of them. */
function unpackRefs(raw: unknown): PackedRefs | undefined {
  if (!(raw instanceof Uint8Array) || raw.byteLength % REF_BYTES !== 0) return undefined;
  return new PackedRefs(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
}

/** References listed in memory (a root of the first layout, decoded by `records.ts`). */
const listedRefs = (refs: PageRef[]): Refs => ({ length: refs.length, at: (i) => refs[i] as PageRef, list: () => refs });

/** The page of `key` among `count` (a power of two): FNV-1a of its UTF-16 code units. Page `p` is named by directory `p ÷ DIRECTORY_PAGES`. */
export function pageOf(key: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) & (count - 1);
}

/** How many directories an object of `count` pages has. */
export const directoryCount = (count: number): number => Math.ceil(count / DIRECTORY_PAGES);

/** How many pages directory `d` of an object of `count` pages names. */
const directorySize = (count: number): number => Math.min(count, DIRECTORY_PAGES);

/** Encode a root: `root` the state's outline, `objects` each large object's path, next ordinal, page count and directories. */
export function encodePagedRoot(key: Uint8Array, root: { rev: number; seq: number; state: JsonObject; objects: readonly { path: readonly string[]; next: number; count: number; dirs: readonly PageRef[] }[] }): Uint8Array {
  const dirs = root.objects.map((o) => ({ path: o.path, next: o.next, pages: o.count, refs: packRefs(o.dirs) }));
  return encodeSealed(key, { rev: root.rev, seq: root.seq, root: asciiJson(root.state), dirs });
}

/** Encode a directory naming the pages packed in `refs` ({@link packRefs}). */
export const encodeDirectory = (key: Uint8Array, refs: Buffer): Uint8Array => encodeSealed(key, { refs });

/** Encode a page of `entries` (`[key, ordinal, value]`, in ordinal order). */
export const encodePage = (key: Uint8Array, entries: readonly PageEntry[]): Uint8Array => encodeSealed(key, { json: asciiJson(entries as unknown as JsonValue) });

/** One member of a page: key, ordinal, value. */
export type PageEntry = readonly [key: string, ordinal: number, value: JsonValue];

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isPowerOfTwo = (v: unknown): v is number => isCount(v) && v > 0 && (v & (v - 1)) === 0;

/**
 * Decode and verify `stream`'s checkpoint at `rev` in any form — one record, a root of the
 * first paged layout, or a root naming directories — without reading its pages.
 * @throws STORE_CORRUPT when the seal does not hold or the record has the wrong shape
 */
export function decodeCheckpointRoot(key: Uint8Array, bytes: Uint8Array, stream: string, rev: number): CheckpointRoot {
  if (!sealHolds(key, bytes)) throw corrupt(key, SEAL_DETAIL, stream);
  const body = bytes.subarray(0, bytes.byteLength - SEAL_BYTES);
  const fields = bodyFields(key, body, stream);
  const record: CheckpointRecord & { objects?: RootObject[] } = fields.has('dirs') ? directoryRoot(key, fields, stream) : checkpointBody(key, body, stream);
  if (record.rev !== rev) throw corrupt(key, 'checkpoint record has the wrong shape', stream);
  const problem = stateProblem(stream, record.state);
  if (problem !== null) throw corrupt(key, `checkpoint holds an invalid state: ${problem}`, stream);
  const objects = record.objects ?? (record.paged ?? []).map((o) => ({ path: o.path, next: o.next, count: o.pages.length, directories: false, refs: listedRefs(o.pages) }));
  return { record: { rev, seq: record.seq, state: record.state }, objects };
}

function bodyFields(key: Uint8Array, body: Uint8Array, stream: string): Map<string, unknown> {
  try {
    return decodeFields(body);
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
}

/** The fields of a root naming directories. */
function directoryRoot(key: Uint8Array, fields: Map<string, unknown>, stream: string): CheckpointRecord & { objects: RootObject[] } {
  const wrong = (): Error => corrupt(key, 'checkpoint record has the wrong shape', stream);
  const [rev, seq, root, dirs] = ['rev', 'seq', 'root', 'dirs'].map((name) => fields.get(name));
  if (!isCount(rev) || !isCount(seq) || !(root instanceof Uint8Array) || !Array.isArray(dirs) || dirs.length === 0) throw wrong();
  let state: JsonValue;
  try {
    state = parseAsciiJson(root);
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
  if (state === null || typeof state !== 'object' || Array.isArray(state)) throw wrong();
  const objects = (dirs as unknown[]).map((o): RootObject => {
    if (!(o instanceof Map)) throw wrong();
    const path: unknown = o.get('path');
    const next: unknown = o.get('next');
    const count: unknown = o.get('pages');
    const refs = unpackRefs(o.get('refs'));
    if (!Array.isArray(path) || path.length === 0 || !path.every((k) => typeof k === 'string') || !isCount(next) || !isPowerOfTwo(count)) throw wrong();
    if (refs === undefined || refs.length !== directoryCount(count)) throw wrong();
    return { path: path as string[], next, count, directories: true, refs };
  });
  return { rev, seq, state: state as JsonObject, objects };
}

/** Verify the seal of `P/<stream>/…` record `bytes` and give its fields. @throws STORE_CORRUPT */
function unsealedFields(key: Uint8Array, bytes: Uint8Array | undefined, stream: string, missing: string): Map<string, unknown> {
  if (bytes === undefined) throw corrupt(key, missing, stream);
  if (!sealHolds(key, bytes)) throw corrupt(key, SEAL_DETAIL, stream);
  return bodyFields(key, bytes.subarray(0, bytes.byteLength - SEAL_BYTES), stream);
}

/**
 * The page references of directory `bytes` (under `key`) of an object of `count` pages.
 * @throws STORE_CORRUPT when it is missing, damaged or names another number of pages
 */
export function decodeDirectory(key: Uint8Array, bytes: Uint8Array | undefined, stream: string, count: number): PackedRefs {
  const refs = unpackRefs(unsealedFields(key, bytes, stream, 'a directory of the checkpoint is missing').get('refs'));
  if (refs === undefined || refs.length !== directorySize(count)) throw corrupt(key, 'directory record has the wrong shape', stream);
  return refs;
}

/**
 * The entries of page `bytes` (under `key`).
 * @throws STORE_CORRUPT when it is missing, damaged or has the wrong shape
 */
export function decodePage(key: Uint8Array, bytes: Uint8Array | undefined, stream: string): PageEntry[] {
  const json = unsealedFields(key, bytes, stream, 'a page of the checkpoint is missing').get('json');
  let entries: JsonValue = null;
  try {
    if (json instanceof Uint8Array) entries = parseAsciiJson(json);
  } catch (err) {
    throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
  }
  const ok = Array.isArray(entries) && entries.every((e) => Array.isArray(e) && e.length === 3 && typeof e[0] === 'string' && Number.isSafeInteger(e[1]));
  if (!ok) throw corrupt(key, 'page record has the wrong shape', stream);
  return entries as unknown as PageEntry[];
}
