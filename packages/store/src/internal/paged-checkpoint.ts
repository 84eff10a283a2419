/**
 * Writing paged checkpoints (README "Paged checkpoints", format 4): a checkpoint of a large
 * state is a root record — `C/<stream>/<rev>` holding the state with each large object (more
 * than {@link PAGED_MIN_MEMBERS} members) left out as `{}`, and the directories of each — plus
 * directories and pages `P/<stream>/<rev>/<n>` (`page-records.ts`): a page holds the members of
 * one large object whose keys hash to it, with their ordinals (key order), a directory names
 * {@link DIRECTORY_PAGES} pages. Pages and directories are shared between checkpoints: a
 * checkpoint writes the pages its tail's patches touched since the previous one and the
 * directories naming them, and names the other directories as they are, so it costs what
 * changed, not the state. A path read into a large object reads the root, one directory and one
 * page (`page-reads.ts`). Checkpoints of smaller states stay single records.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue, PatchPathStep, StateTree } from '@stateflow/core';
import { checkpointKey, pageKey } from './keys.js';
import { DIRECTORY_PAGES, directoryCount, encodeDirectory, encodePage, encodePagedRoot, packRefs, pageOf, writeRef } from './page-records.js';
import type { PageEntry } from './page-records.js';
import { encodeCheckpoint } from './records.js';

/** An object of more members than this is written in pages. */
export const PAGED_MIN_MEMBERS = 1024;

/** Members a page holds at most on average: a large object of n members gets the power of two of pages nearest above n ÷ this. */
export const PAGE_MEMBERS = 16;

/**
 * A state whose latest checkpoint and the patches since took fewer bytes than this (and whose
 * checkpoint was not paged) is checkpointed as one record: looking for its large objects would
 * cost more than it saves.
 */
export const PAGED_MIN_BYTES = 64 * 1024;

/** A page as memory keeps it: where it is stored (the checkpoint revision and number that wrote it), its entries (key, ordinal, value: the values are shared with the state it was written from) and its size in bytes. */
export interface Page {
  readonly rev: number;
  readonly n: number;
  readonly entries: readonly PageEntry[];
  readonly bytes: number;
}

/** A directory as memory keeps it: where it is stored, its size in bytes and the page references it holds (packed as stored). */
export interface Directory {
  readonly rev: number;
  readonly n: number;
  readonly bytes: number;
  readonly refs: Buffer;
}

/**
 * A large object of a paged checkpoint: its key path, the next ordinal to give an appended key,
 * its pages (index = key hash modulo their count) and the directories naming them
 * ({@link DIRECTORY_PAGES} each, in order), and the bytes of all its pages and of all its
 * directories.
 */
export interface PagedObject {
  readonly path: readonly string[];
  readonly next: number;
  readonly pages: readonly Page[];
  readonly dirs: readonly Directory[];
  readonly pageBytes: number;
  readonly dirBytes: number;
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

/**
 * The records of one checkpoint, what reading from it costs in bytes (its size; of a paged one,
 * what a path read reads: {@link pathReadBytes}) and its layout (paged checkpoints).
 */
export interface WrittenCheckpoint {
  puts: { key: Uint8Array; value: Uint8Array }[];
  bytes: number;
  layout?: PageLayout;
}

/**
 * What a path read from a paged checkpoint reads, in bytes: the root (`rootBytes`), and of the
 * large object whose directory and page are largest on average, one of each. The replay budget
 * is measured against it (`checkpoint-policy.ts`), so a large state is checkpointed about as
 * often as a small one: a checkpoint costs the pages its tail touched, and a read replays a tail
 * as short as a small state's.
 */
export function pathReadBytes(rootBytes: number, objects: readonly PagedObject[]): number {
  return rootBytes + Math.round(Math.max(...objects.map((o) => o.dirBytes / o.dirs.length + o.pageBytes / o.pages.length)));
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
 * that checkpoint not paged, else a root record, the pages changed since the previous paged
 * checkpoint (`prior.layout`, with the net patches since it in `prior.tail`) and the
 * directories naming them.
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
  const value = encodePagedRoot(key, { rev, seq, state: root, objects: objects.map((o) => ({ path: o.path, next: o.next, count: o.pages.length, dirs: o.dirs.map((d) => [d.rev, d.n] as const) })) });
  writer.puts.push({ key, value });
  return { puts: writer.puts, bytes: pathReadBytes(value.byteLength, objects), layout: { rev, objects } };
}

/** Writes the pages and directories of one checkpoint, numbered in the order written. */
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
    const buckets: PageEntry[][] = Array.from({ length: count }, () => []);
    keys.forEach((k, ord) => (buckets[pageOf(k, count)] as PageEntry[]).push([k, ord, object[k] as JsonValue]));
    const pages = buckets.map((entries) => this.#page(entries));
    const dirs = Array.from({ length: directoryCount(count) }, (_, d) => this.#directory(packRefs(pages.slice(d * DIRECTORY_PAGES, (d + 1) * DIRECTORY_PAGES).map((p) => [p.rev, p.n] as const))));
    return { path, next: keys.length, pages, dirs, pageBytes: pages.reduce((sum, p) => sum + p.bytes, 0), dirBytes: dirs.reduce((sum, d) => sum + d.bytes, 0) };
  }

  /**
   * `old` with the pages that `patches` (the net patches since its checkpoint, oldest first)
   * touched rewritten — each from the old page's entries and the tree's values of the touched
   * members only — and the directories naming them, or `undefined` when it must be written
   * afresh: a patch replaced the object (or an ancestor), its size left the range its page count
   * serves, or the patches and the tree disagree about a key (never expected; writing afresh is
   * always right).
   */
  updated(old: PagedObject, size: number, patches: readonly JsonObject[]): PagedObject | undefined {
    const count = old.pages.length;
    if (size > 4 * count * PAGE_MEMBERS || (count > 1 && 4 * size < count * PAGE_MEMBERS)) return undefined;
    const touched = touchedKeys(old, patches);
    if (touched === undefined) return undefined;
    const keys = [...touched.present.keys()];
    const now = new Map<string, JsonValue>();
    const values = this.tree.membersAt(keySteps(old.path), keys);
    for (const [j, k] of keys.entries()) {
      const value = values[j];
      if (touched.present.get(k) !== (value !== undefined)) return undefined;
      if (value !== undefined) now.set(k, value);
    }
    // Appended members take the next ordinals, in the order they were last added.
    let next = old.next;
    const appended = new Map<number, PageEntry[]>();
    for (const k of touched.appended) {
      if (!now.has(k)) continue;
      const i = pageOf(k, count);
      appended.set(i, [...(appended.get(i) ?? []), [k, next++, now.get(k) as JsonValue]]);
    }
    const byPage = new Map<number, string[]>();
    for (const k of keys) {
      const i = pageOf(k, count);
      byPage.set(i, [...(byPage.get(i) ?? []), k]);
    }
    const pages = old.pages.slice();
    for (const [i, own] of byPage) {
      const entries = rewritten(old.pages[i] as Page, own, touched, now, appended.get(i) ?? []);
      if (entries === undefined) return undefined;
      pages[i] = this.#page(entries);
    }
    return this.#withDirectories(old, pages, new Set(byPage.keys()), next);
  }

  /** `old` with pages `pages` (those numbered `changed` new), the directories naming those rewritten. */
  #withDirectories(old: PagedObject, pages: readonly Page[], changed: ReadonlySet<number>, next: number): PagedObject {
    let pageBytes = old.pageBytes;
    const dirRefs = new Map<number, Buffer>();
    for (const i of changed) {
      const page = pages[i] as Page;
      pageBytes += page.bytes - (old.pages[i] as Page).bytes;
      const d = Math.floor(i / DIRECTORY_PAGES);
      let refs = dirRefs.get(d);
      if (refs === undefined) dirRefs.set(d, (refs = Buffer.from((old.dirs[d] as Directory).refs)));
      writeRef(refs, i % DIRECTORY_PAGES, [page.rev, page.n]);
    }
    const dirs = old.dirs.slice();
    let dirBytes = old.dirBytes;
    for (const [d, refs] of dirRefs) {
      const dir = this.#directory(refs);
      dirBytes += dir.bytes - (dirs[d] as Directory).bytes;
      dirs[d] = dir;
    }
    return { path: old.path, next, pages, dirs, pageBytes, dirBytes };
  }

  /** A page of `entries` (in ordinal order). */
  #page(entries: readonly PageEntry[]): Page {
    const { n, bytes } = this.#put((key) => encodePage(key, entries));
    return { rev: this.rev, n, entries, bytes };
  }

  /** A directory naming the pages packed in `refs`. */
  #directory(refs: Buffer): Directory {
    return { rev: this.rev, ...this.#put((key) => encodeDirectory(key, refs)), refs };
  }

  /** Put the next record of this checkpoint, `encode`d under its key: its number and size. */
  #put(encode: (key: Uint8Array) => Uint8Array): { n: number; bytes: number } {
    const n = this.#n++;
    const key = pageKey(this.stream, this.rev, n);
    const value = encode(key);
    this.puts.push({ key, value });
    return { n, bytes: value.byteLength };
  }
}

/**
 * The entries of `page` after its touched members `keys` took their values `now`: kept in place
 * with their ordinals, deleted ones dropped, `appended` ones (added since, with their new
 * ordinals) at the end; `undefined` when a member the page should hold is not in it.
 */
function rewritten(page: Page, keys: readonly string[], touched: { present: ReadonlyMap<string, boolean>; appended: ReadonlySet<string> }, now: ReadonlyMap<string, JsonValue>, appended: readonly PageEntry[]): PageEntry[] | undefined {
  const replaced = new Set<string>();
  const entries: PageEntry[] = [];
  for (const entry of page.entries) {
    const k = entry[0];
    if (!touched.present.has(k)) entries.push(entry);
    else if (now.has(k) && !touched.appended.has(k)) {
      entries.push([k, entry[1], now.get(k) as JsonValue]);
      replaced.add(k);
    }
  }
  for (const k of keys) if (now.has(k) && !touched.appended.has(k) && !replaced.has(k)) return undefined;
  entries.push(...appended);
  return entries;
}

/**
 * The members of `old`'s object that `patches` touched — `present`: whether each is there after
 * them; `appended`: those added (or deleted and added again) since, in the order they were last
 * added — or `undefined` when a patch replaced the object or an ancestor.
 */
function touchedKeys(old: PagedObject, patches: readonly JsonObject[]): { present: Map<string, boolean>; appended: Set<string> } | undefined {
  const present = new Map<string, boolean>();
  const appended = new Set<string>();
  const inBase = (k: string): boolean => (old.pages[pageOf(k, old.pages.length)] as Page).entries.some((e) => e[0] === k);
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
