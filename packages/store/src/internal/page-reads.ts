/**
 * Reading checkpoints in any form (README "Paged checkpoints"): one record, a root naming
 * directories of pages, or a root of the first paged layout naming every page. A path read into
 * a large object reads the root, the directory on the path and the page on the path; a whole
 * read reads every directory, then every page, in one batch each. Also which pages and
 * directories a compaction sweeps.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, PatchPathStep } from '@stateflow/core';
import type { StorageReader } from '../storage.js';
import { Family, pageKey, pageRange, parseKey, streamRange } from './keys.js';
import { DIRECTORY_PAGES, decodeCheckpointRoot, decodeDirectory, decodePage, pageOf } from './page-records.js';
import type { PackedRefs, PageEntry, PageRef, RootObject } from './page-records.js';
import { pathReadBytes } from './paged-checkpoint.js';
import type { Directory, Page, PageLayout, PagedObject } from './paged-checkpoint.js';
import { corrupt } from './records.js';
import type { CheckpointRecord } from './records.js';
import { stateProblem } from './validate.js';

/**
 * A decoded checkpoint: its state (with `partial`, only what a path read needs), what reading
 * from it costs in bytes (`WrittenCheckpoint.bytes`: of a root naming directories, a path
 * read's root, directory and page; else every record it is), and (a root naming directories,
 * when asked for) its layout.
 */
export interface ReadCheckpoint {
  record: CheckpointRecord;
  partial: boolean;
  bytes: number;
  layout?: PageLayout;
}

/**
 * Decode and verify `stream`'s checkpoint at `rev` (`bytes` under `key`), reading its
 * directories and pages from `reader` when it is paged. `options.path`: only the value at that
 * path is wanted — a page into a large object on it is then the only one read (through its
 * directory), the object holding just that member, and a path beside every large object reads
 * no page (`partial`: the large objects off the path are left `{}`). `options.layout`: also give
 * the paged layout (for the next checkpoint; none for a root of the first layout, whose next
 * checkpoint is written afresh).
 * @throws STORE_CORRUPT when the root, a directory or a page is missing, damaged or inconsistent
 */
export async function readCheckpoint(reader: StorageReader, key: Uint8Array, bytes: Uint8Array, stream: string, rev: number, options: { path?: readonly PatchPathStep[]; layout?: boolean } = {}): Promise<ReadCheckpoint> {
  const root = decodeCheckpointRoot(key, bytes, stream, rev);
  const size = bytes.byteLength;
  if (root.objects.length === 0) return { record: root.record, partial: false, bytes: size };
  const { path } = options;
  if (path === undefined) return wholeRead(reader, key, size, stream, root.record, root.objects, options.layout === true);
  const on = root.objects.find((o) => o.path.length < path.length && o.path.every((k, i) => path[i]?.kind === 'key' && path[i].key === k));
  const under = (o: RootObject): boolean => path.length <= o.path.length && path.every((step, i) => step.kind === 'key' && step.key === o.path[i]);
  // Not into a large object, nor above one: the root alone holds the value.
  if (on === undefined && !root.objects.some(under)) return { record: root.record, partial: true, bytes: size };
  if (on === undefined) return wholeRead(reader, key, size, stream, root.record, root.objects, options.layout === true);
  const step = path[on.path.length] as PatchPathStep;
  const object: JsonObject = {};
  if (step.kind === 'key') {
    const [page] = await readPages(reader, stream, [await pageRefOf(reader, stream, on, pageOf(step.key, on.count))]);
    const found = (page as PageEntry[]).find(([k]) => k === step.key);
    if (found !== undefined) Object.defineProperty(object, step.key, { value: found[2], enumerable: true, writable: true, configurable: true });
  }
  return { record: { ...root.record, state: placed(root.record.state, on.path, Object.freeze(object), { key, stream }) }, partial: true, bytes: size };
}

/** The reference of page `p` of large object `on`: named by the root (first layout) or by its directory, read. */
async function pageRefOf(reader: StorageReader, stream: string, on: RootObject, p: number): Promise<PageRef> {
  if (!on.directories) return on.refs.at(p);
  const [dir] = await readDirectories(reader, stream, [on.refs.at(Math.floor(p / DIRECTORY_PAGES))], on.count);
  return (dir as PackedRefs).at(p % DIRECTORY_PAGES);
}

/** The whole checkpoint: every directory of its large objects in one batch, then every page in one. */
async function wholeRead(reader: StorageReader, key: Uint8Array, rootBytes: number, stream: string, record: CheckpointRecord, objects: readonly RootObject[], withLayout: boolean): Promise<ReadCheckpoint> {
  const dirKeys = objects.map((o) => (o.directories ? o.refs.list().map(([r, n]) => pageKey(stream, r, n)) : []));
  const dirValues = await readMany(reader, dirKeys.flat());
  const dirs = new Map<RootObject, { refs: PackedRefs; bytes: number }[]>();
  const pageRefs = new Map<RootObject, readonly PageRef[]>();
  let at = 0;
  objects.forEach((o, j) => {
    const keys = dirKeys[j] as Uint8Array[];
    const own = dirValues.slice(at, (at += keys.length)).map((v, i) => ({ refs: decodeDirectory(keys[i] as Uint8Array, v, stream, o.count), bytes: v?.byteLength ?? 0 }));
    dirs.set(o, own);
    pageRefs.set(o, o.directories ? own.flatMap((d) => d.refs.list()) : o.refs.list());
  });
  const pages = await readPages(reader, stream, objects.flatMap((o) => pageRefs.get(o) as PageRef[]));
  let state = record.state;
  let total = rootBytes;
  const layoutObjects: PagedObject[] = [];
  let from = 0;
  for (const o of objects) {
    const refs = pageRefs.get(o) as readonly PageRef[];
    const own = pages.slice(from, (from += refs.length));
    state = placed(state, o.path, objectOf(own, refs, stream), { key, stream });
    const layout = layoutOf(o, refs, own, dirs.get(o) as { refs: PackedRefs; bytes: number }[]);
    total += layout.pageBytes + layout.dirBytes;
    if (o.directories) layoutObjects.push(layout);
  }
  const problem = stateProblem(stream, state);
  if (problem !== null) throw corrupt(key, `checkpoint holds an invalid state: ${problem}`, stream);
  const first = layoutObjects.length === 0;
  const read: ReadCheckpoint = { record: { rev: record.rev, seq: record.seq, state }, partial: false, bytes: first ? total : pathReadBytes(rootBytes, layoutObjects) };
  if (withLayout && !first) read.layout = { rev: record.rev, objects: layoutObjects };
  return read;
}

/** The large object whose pages (`refs`) hold `pages`, members in ordinal order. @throws STORE_CORRUPT for a member in the wrong page */
function objectOf(pages: readonly (PageEntry[] & { bytes: number })[], refs: readonly PageRef[], stream: string): JsonObject {
  const entries: PageEntry[] = [];
  pages.forEach((page, i) => {
    for (const entry of page) {
      if (pageOf(entry[0], pages.length) !== i) throw corrupt(pageKey(stream, ...(refs[i] as PageRef)), 'a member is in the wrong page', stream);
      entries.push(entry);
    }
  });
  entries.sort((a, b) => a[1] - b[1]);
  const object: JsonObject = {};
  for (const [k, , value] of entries) {
    if (k === '__proto__') Object.defineProperty(object, k, { value, enumerable: true, writable: true, configurable: true });
    else object[k] = value;
  }
  return Object.freeze(object);
}

/** What memory keeps of large object `o` read whole: its pages' places, ordinals and sizes, its directories' places, sizes and references. */
function layoutOf(o: RootObject, refs: readonly PageRef[], pages: readonly (PageEntry[] & { bytes: number })[], dirs: readonly { refs: PackedRefs; bytes: number }[]): PagedObject {
  const layoutPages: Page[] = pages.map((page, i) => {
    const [rev, n] = refs[i] as PageRef;
    return { rev, n, entries: page, bytes: page.bytes };
  });
  const layoutDirs: Directory[] = dirs.map((d, i) => {
    const [rev, n] = o.refs.at(i);
    return { rev, n, bytes: d.bytes, refs: Buffer.from(d.refs.bytes) };
  });
  const sum = (sizes: readonly { bytes: number }[]): number => sizes.reduce((total, s) => total + s.bytes, 0);
  return { path: o.path, next: o.next, pages: layoutPages, dirs: layoutDirs, pageBytes: sum(layoutPages), dirBytes: sum(layoutDirs) };
}

/** The values at `keys`: synchronous point reads where the reader has them, else one `getMany`. */
export async function readMany(reader: StorageReader, keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
  if (reader.getSync === undefined) return keys.length === 0 ? [] : reader.getMany(keys);
  return keys.map((k) => (reader.getSync as (key: Uint8Array) => Uint8Array | undefined)(k));
}

/** The verified page references of directories `refs` of `stream`, of an object of `count` pages. */
async function readDirectories(reader: StorageReader, stream: string, refs: readonly PageRef[], count: number): Promise<PackedRefs[]> {
  const keys = refs.map(([rev, n]) => pageKey(stream, rev, n));
  return (await readMany(reader, keys)).map((bytes, i) => decodeDirectory(keys[i] as Uint8Array, bytes, stream, count));
}

/** The verified entries of pages `refs` of `stream`, each with its stored size. */
async function readPages(reader: StorageReader, stream: string, refs: readonly PageRef[]): Promise<(PageEntry[] & { bytes: number })[]> {
  const keys = refs.map(([rev, n]) => pageKey(stream, rev, n));
  return (await readMany(reader, keys)).map((bytes, i) => Object.assign(decodePage(keys[i] as Uint8Array, bytes, stream).slice(), { bytes: bytes?.byteLength ?? 0 }));
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

/** The seq of `stream`'s checkpoint at `rev` (`bytes` under `key`), its pages not read. @throws STORE_CORRUPT */
export function checkpointSeq(key: Uint8Array, bytes: Uint8Array, stream: string, rev: number): number {
  return decodeCheckpointRoot(key, bytes, stream, rev).record.seq;
}

/**
 * The pages and directories of `stream` that a compaction moving its origin to `origin`
 * deletes: those written below the origin that no checkpoint at or above it (up to `head`)
 * names, through its directories or itself. Those written at or above the origin belong to
 * retained checkpoints.
 * @throws STORE_CORRUPT when a retained checkpoint or one of its directories does not verify
 */
export async function pagesToSweep(reader: StorageReader, stream: string, origin: number, head: number): Promise<Uint8Array[]> {
  const named = new Set<string>();
  const directories = new Map<string, { ref: PageRef; count: number }>();
  for await (const [key, value] of reader.iterate(streamRange(Family.checkpoint, stream, origin, head))) {
    const k = parseKey(key);
    if (k.family !== 'checkpoint') continue;
    for (const o of decodeCheckpointRoot(key, value, stream, k.n).objects) {
      for (const ref of o.refs.list()) {
        named.add(`${ref[0]}/${ref[1]}`);
        if (o.directories) directories.set(`${ref[0]}/${ref[1]}`, { ref, count: o.count });
      }
    }
  }
  const dirs = [...directories.values()];
  const values = await readMany(reader, dirs.map(({ ref }) => pageKey(stream, ...ref)));
  dirs.forEach(({ ref, count }, i) => {
    for (const [r, n] of decodeDirectory(pageKey(stream, ...ref), values[i], stream, count).list()) named.add(`${r}/${n}`);
  });
  const dead: Uint8Array[] = [];
  for await (const [key] of reader.iterate(pageRange(stream, 0, origin - 1))) {
    const k = parseKey(key);
    if (k.family === 'page' && !named.has(`${k.rev}/${k.n}`)) dead.push(key);
  }
  return dead;
}
