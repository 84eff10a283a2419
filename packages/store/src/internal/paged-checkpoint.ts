/**
 * Paged checkpoints (README "Paged checkpoints", format 4): a checkpoint of a large state is a
 * root record — `C/<stream>/<rev>` holding the state with each large object (more than
 * {@link PAGED_MIN_MEMBERS} members) left out as `{}`, and the pages of each — plus pages
 * `P/<stream>/<rev>/<n>`, each the members of one large object whose keys hash to it, with their
 * ordinals (key order). Pages are shared between checkpoints: a checkpoint writes the pages its
 * tail's patches touched since the previous one and names the others as they are, so it costs
 * what changed, not the state. A path read into a large object reads the root and one page.
 * Checkpoints of smaller states stay single records (the version-3 record, still read).
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep, StateTree } from '@stateflow/core';
import type { StorageReader } from '../storage.js';
import { asciiJson, decodeFields, parseAsciiJson } from './codec.js';
import { Family, checkpointKey, pageKey, pageRange, parseKey, streamRange } from './keys.js';
import { SEAL_BYTES, corrupt, decodeCheckpoint, encodeCheckpoint, encodeSealed, sealHolds } from './records.js';
import type { CheckpointRecord, PagedObjectRef } from './records.js';
import { encodePagedRefs } from './records.js';
import { stateProblem } from './validate.js';

/** An object of more members than this is written in pages. */
export const PAGED_MIN_MEMBERS = 1024;

/** Members a page holds on average: a large object of n members gets the power of two of pages nearest above n ÷ this. */
export const PAGE_MEMBERS = 64;

/**
 * A state whose latest checkpoint and the patches since took fewer bytes than this (and whose
 * checkpoint was not paged) is checkpointed as one record: looking for its large objects would
 * cost more than it saves.
 */
export const PAGED_MIN_BYTES = 64 * 1024;

/** A page as memory keeps it: where it is stored (the checkpoint revision and number that wrote it), its keys' ordinals and its size in bytes. */
export interface Page {
  readonly rev: number;
  readonly n: number;
  readonly ords: ReadonlyMap<string, number>;
  readonly bytes: number;
}

/** A large object of a paged checkpoint: its key path, the next ordinal to give an appended key, its pages (index = key hash modulo their count). */
export interface PagedObject {
  readonly path: readonly string[];
  readonly next: number;
  readonly pages: readonly Page[];
}

/** What memory keeps of a stream's latest paged checkpoint, so that the next one writes only the pages changed since. */
export interface PageLayout {
  readonly rev: number;
  readonly objects: readonly PagedObject[];
}

/** The net patches since a checkpoint, newest first (a persistent list: a failed group member leaves it as it was). */
export interface TailPatch {
  readonly patch: JsonObject;
  readonly prev: TailPatch | null;
}

/** The records of one checkpoint, its size (root and every page it names, in bytes) and its layout (paged checkpoints). */
export interface WrittenCheckpoint {
  puts: { key: Uint8Array; value: Uint8Array }[];
  bytes: number;
  layout?: PageLayout;
}

/** The page of `key` among `count` (a power of two): FNV-1a of its UTF-16 code units. Part of the stored format. */
export function pageOf(key: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) & (count - 1);
}

function pageCountFor(size: number): number {
  let count = 1;
  while (count * PAGE_MEMBERS < size) count *= 2;
  return count;
}

const keySteps = (path: readonly string[]): PatchPathStep[] => path.map((key) => ({ kind: 'key', key }));

/**
 * The records of `stream`'s checkpoint at `rev` (transition `seq`) of `tree`: one record when the
 * previous checkpoint (`prior.bytes`) and the patches since (`prior.tailBytes`) were small and
 * that checkpoint not paged, else a root record and the pages changed since the previous paged
 * checkpoint (`prior.layout`, with the net patches since it in `prior.tail`).
 */
export function checkpointRecords(stream: string, rev: number, seq: number, tree: StateTree, prior: { bytes: number; tailBytes: number; layout?: PageLayout | undefined; tail?: TailPatch | null | undefined }): WrittenCheckpoint {
  const key = checkpointKey(stream, rev);
  const whole = (): WrittenCheckpoint => {
    const value = encodeCheckpoint(key, { rev, seq, state: tree.state() });
    return { puts: [{ key, value }], bytes: value.byteLength };
  };
  if (prior.layout === undefined && prior.bytes + prior.tailBytes < PAGED_MIN_BYTES) return whole();
  const { root, large } = tree.outline(PAGED_MIN_MEMBERS);
  if (large.length === 0) return whole();
  const patches: JsonObject[] = [];
  for (let t = prior.tail ?? null; t !== null; t = t.prev) patches.push(t.patch);
  patches.reverse();
  const writer = new PageWriter(stream, rev, tree);
  const objects = large.map(({ path, size }) => {
    const old = prior.layout?.objects.find((o) => o.path.length === path.length && o.path.every((k, i) => k === path[i]));
    return (old === undefined ? undefined : writer.updated(old, size, patches)) ?? writer.fresh(path);
  });
  const refs: PagedObjectRef[] = objects.map((o) => ({ path: [...o.path], next: o.next, pages: o.pages.map((p) => [p.rev, p.n]) }));
  const value = encodeSealed(key, { rev, seq, root: asciiJson(root), pages: encodePagedRefs(refs) });
  writer.puts.push({ key, value });
  const bytes = objects.reduce((sum, o) => sum + o.pages.reduce((s, p) => s + p.bytes, 0), value.byteLength);
  return { puts: writer.puts, bytes, layout: { rev, objects } };
}

/** Writes the pages of one checkpoint, numbered in the order written. */
class PageWriter {
  readonly puts: { key: Uint8Array; value: Uint8Array }[] = [];
  #n = 0;

  constructor(
    readonly stream: string,
    readonly rev: number,
    readonly tree: StateTree,
  ) {}

  /** Every page of the object at `path`, its keys' ordinals their positions in it. */
  fresh(path: readonly string[]): PagedObject {
    const object = this.tree.valueAt(keySteps(path)) as JsonObject;
    const keys = Object.keys(object);
    const count = pageCountFor(keys.length);
    const buckets: [string, number][][] = Array.from({ length: count }, () => []);
    keys.forEach((k, ord) => (buckets[pageOf(k, count)] as [string, number][]).push([k, ord]));
    const pages = buckets.map((bucket) => this.#page(new Map(bucket), (k) => object[k] as JsonValue));
    return { path, next: keys.length, pages };
  }

  /**
   * `old` with the pages that `patches` (the net patches since its checkpoint, oldest first)
   * touched rewritten, or `undefined` when it must be written afresh: a patch replaced the object
   * (or an ancestor), its size left the range its page count serves, or the patches and the tree
   * disagree about a key (never expected; writing afresh is always right).
   */
  updated(old: PagedObject, size: number, patches: readonly JsonObject[]): PagedObject | undefined {
    const count = old.pages.length;
    if (size > 4 * count * PAGE_MEMBERS || (count > 1 && 4 * size < count * PAGE_MEMBERS)) return undefined;
    const touched = touchedKeys(old, patches);
    if (touched === undefined) return undefined;
    const steps = keySteps(old.path);
    const memberSteps = (k: string): PatchPathStep[] => [...steps, { kind: 'key', key: k }];
    const changed = new Map<number, Map<string, number>>();
    const ordsOf = (k: string): Map<string, number> => {
      const i = pageOf(k, count);
      let ords = changed.get(i);
      if (ords === undefined) changed.set(i, (ords = new Map((old.pages[i] as Page).ords)));
      return ords;
    };
    let next = old.next;
    for (const [k, present] of touched.present) {
      if (present !== (this.tree.kindAt(memberSteps(k)) !== undefined)) return undefined;
      const ords = ordsOf(k);
      if (!present) ords.delete(k);
      else if (!touched.appended.has(k) && !ords.has(k)) return undefined;
    }
    for (const k of touched.appended) if (touched.present.get(k) === true) ordsOf(k).set(k, next++);
    const pages = old.pages.slice();
    for (const [i, ords] of changed) {
      const keys = [...ords.keys()];
      const values = new Map(this.tree.membersAt(steps, keys).map((value, j) => [keys[j] as string, value as JsonValue]));
      pages[i] = this.#page(ords, (k) => values.get(k) as JsonValue);
    }
    return { path: old.path, next, pages };
  }

  #page(ords: Map<string, number>, valueOf: (key: string) => JsonValue): Page {
    const entries = [...ords].sort((a, b) => a[1] - b[1]).map(([k, ord]) => [k, ord, valueOf(k)] as JsonValue);
    const n = this.#n++;
    const key = pageKey(this.stream, this.rev, n);
    const value = encodeSealed(key, { json: asciiJson(entries) });
    this.puts.push({ key, value });
    return { rev: this.rev, n, ords, bytes: value.byteLength };
  }
}

/**
 * The members of `old`'s object that `patches` touched — `present`: whether each is there after
 * them; `appended`: those added (or deleted and added again) since, in the order they were last
 * added — or `undefined` when a patch replaced the object or an ancestor.
 */
function touchedKeys(old: PagedObject, patches: readonly JsonObject[]): { present: Map<string, boolean>; appended: Set<string> } | undefined {
  const present = new Map<string, boolean>();
  const appended = new Set<string>();
  const inBase = (k: string): boolean => (old.pages[pageOf(k, old.pages.length)] as Page).ords.has(k);
  for (const patch of patches) {
    let at: JsonValue | undefined = patch;
    for (const key of old.path) {
      if (!Object.prototype.hasOwnProperty.call(at, key)) {
        at = undefined;
        break;
      }
      at = (at as JsonObject)[key];
      if (!isJsonObject(at)) return undefined;
    }
    if (at === undefined) continue;
    for (const [k, v] of Object.entries(at as JsonObject)) {
      const before = present.get(k) ?? inBase(k);
      const after = v !== null;
      if (!before && after) {
        appended.delete(k);
        appended.add(k);
      }
      present.set(k, after);
    }
  }
  return { present, appended };
}

/** A decoded checkpoint: its state (with `partial`, only what a path read needs), its stored size, and (paged, when asked for) its layout. */
export interface ReadCheckpoint {
  record: CheckpointRecord;
  partial: boolean;
  bytes: number;
  layout?: PageLayout;
}

/**
 * Decode and verify `stream`'s checkpoint at `rev` (`bytes` under `key`), reading its pages from
 * `reader` when it is paged. `options.path`: only the value at that path is wanted — a page
 * into a large object on it is then the only one read, the object holding just that member, and
 * a path beside every large object reads no page (`partial`: the large objects off the path are
 * left `{}`). `options.layout`: also give the paged layout (for the next checkpoint).
 * @throws STORE_CORRUPT when the root or a page is missing, damaged or inconsistent
 */
export async function readCheckpoint(reader: StorageReader, key: Uint8Array, bytes: Uint8Array, stream: string, rev: number, options: { path?: readonly PatchPathStep[]; layout?: boolean } = {}): Promise<ReadCheckpoint> {
  const root = decodeCheckpoint(key, bytes, stream, rev);
  if (root.paged === undefined) return { record: root, partial: false, bytes: bytes.byteLength };
  const { path } = options;
  const on = path === undefined ? undefined : root.paged.find((o) => o.path.length < path.length && o.path.every((k, i) => path[i]?.kind === 'key' && path[i].key === k));
  const under = (o: PagedObjectRef): boolean => path !== undefined && path.length <= o.path.length && path.every((step, i) => step.kind === 'key' && step.key === o.path[i]);
  // Not into a large object, nor above one: the root alone holds the value.
  if (path !== undefined && on === undefined && !root.paged.some(under)) return { record: { ...root, paged: undefined }, partial: true, bytes: bytes.byteLength };
  if (on !== undefined && path !== undefined) {
    const step = path[on.path.length] as PatchPathStep;
    if (step.kind !== 'key') return { record: { ...root, state: placed(root.state, on.path, {}, { key, stream }), paged: undefined }, partial: true, bytes: bytes.byteLength };
    const i = pageOf(step.key, on.pages.length);
    const [entries] = await readPages(reader, stream, [on.pages[i] as [number, number]]);
    const found = (entries as PageEntry[]).find(([k]) => k === step.key);
    const object: JsonObject = {};
    if (found !== undefined) Object.defineProperty(object, step.key, { value: found[2], enumerable: true, writable: true, configurable: true });
    return { record: { ...root, state: placed(root.state, on.path, Object.freeze(object), { key, stream }), paged: undefined }, partial: true, bytes: bytes.byteLength };
  }
  let state = root.state;
  let total = bytes.byteLength;
  const objects: PagedObject[] = [];
  for (const ref of root.paged) {
    const pages = await readPages(reader, stream, ref.pages);
    const entries: PageEntry[] = [];
    const layoutPages: Page[] = [];
    pages.forEach((page, i) => {
      for (const entry of page) {
        if (pageOf(entry[0], pages.length) !== i) throw corrupt(pageKey(stream, ...(ref.pages[i] as [number, number])), 'a member is in the wrong page', stream);
        entries.push(entry);
      }
      const [prev, n] = ref.pages[i] as [number, number];
      const size = page.bytes;
      total += size;
      if (options.layout === true) layoutPages.push({ rev: prev, n, ords: new Map(page.map(([k, ord]) => [k, ord])), bytes: size });
    });
    entries.sort((a, b) => a[1] - b[1]);
    const object: JsonObject = {};
    for (const [k, , value] of entries) {
      if (k === '__proto__') Object.defineProperty(object, k, { value, enumerable: true, writable: true, configurable: true });
      else object[k] = value;
    }
    state = placed(state, ref.path, Object.freeze(object), { key, stream });
    objects.push({ path: ref.path, next: ref.next, pages: layoutPages });
  }
  const problem = stateProblem(stream, state);
  if (problem !== null) throw corrupt(key, `checkpoint holds an invalid state: ${problem}`, stream);
  const read: ReadCheckpoint = { record: { rev, seq: root.seq, state }, partial: false, bytes: total };
  if (options.layout === true) read.layout = { rev, objects };
  return read;
}

/** One member of a page: key, ordinal, value. */
type PageEntry = [string, number, JsonValue];

/** The verified entries of pages `refs` (`[rev, n]`) of `stream`, each with its stored size. */
async function readPages(reader: StorageReader, stream: string, refs: readonly (readonly [number, number])[]): Promise<(PageEntry[] & { bytes: number })[]> {
  const keys = refs.map(([rev, n]) => pageKey(stream, rev, n));
  const values = reader.getSync === undefined ? await reader.getMany(keys) : keys.map((k) => (reader.getSync as (key: Uint8Array) => Uint8Array | undefined)(k));
  return values.map((bytes, i) => {
    const key = keys[i] as Uint8Array;
    if (bytes === undefined) throw corrupt(key, 'a page of the checkpoint is missing', stream);
    if (!sealHolds(key, bytes)) throw corrupt(key, 'the record does not match its seal', stream);
    let entries: JsonValue;
    try {
      const json = decodeFields(bytes.subarray(0, bytes.byteLength - SEAL_BYTES)).get('json');
      entries = json instanceof Uint8Array ? parseAsciiJson(json) : null;
    } catch (err) {
      throw corrupt(key, `value does not decode: ${(err as Error).message}`, stream, err);
    }
    const ok = Array.isArray(entries) && entries.every((e) => Array.isArray(e) && e.length === 3 && typeof e[0] === 'string' && Number.isSafeInteger(e[1]));
    if (!ok) throw corrupt(key, 'page record has the wrong shape', stream);
    return Object.assign((entries as unknown as PageEntry[]).slice(), { bytes: bytes.byteLength });
  });
}

/** `state` with the value at key path `path` (a `{}` of the root record) replaced by `value`, its ancestors copied. */
function placed(state: JsonObject, path: readonly string[], value: JsonObject, at: { key: Uint8Array; stream: string }): JsonObject {
  const [key, ...rest] = path as [string, ...string[]];
  const member = Object.prototype.hasOwnProperty.call(state, key) ? state[key] : undefined;
  if (!isJsonObject(member) || (rest.length === 0 && Object.keys(member).length > 0)) throw corrupt(at.key, 'a paged object is not an empty object of the root', at.stream);
  const copy: JsonObject = { ...state };
  Object.defineProperty(copy, key, { value: rest.length === 0 ? value : placed(member, rest, value, at), enumerable: true, writable: true, configurable: true });
  return Object.freeze(copy);
}

/**
 * The pages of `stream` that a compaction moving its origin to `origin` deletes: those written
 * below the origin that no checkpoint at or above it (up to `head`) names. Pages written at or
 * above the origin belong to retained checkpoints.
 * @throws STORE_CORRUPT when a retained checkpoint does not verify
 */
export async function pagesToSweep(reader: StorageReader, stream: string, origin: number, head: number): Promise<Uint8Array[]> {
  const named = new Set<string>();
  for await (const [key, value] of reader.iterate(streamRange(Family.checkpoint, stream, origin, head))) {
    const k = parseKey(key);
    if (k.family !== 'checkpoint') continue;
    for (const o of decodeCheckpoint(key, value, stream, k.n).paged ?? []) for (const [r, n] of o.pages) named.add(`${r}/${n}`);
  }
  const dead: Uint8Array[] = [];
  for await (const [key] of reader.iterate(pageRange(stream, 0, origin - 1))) {
    const k = parseKey(key);
    if (k.family === 'page' && !named.has(`${k.rev}/${k.n}`)) dead.push(key);
  }
  return dead;
}
