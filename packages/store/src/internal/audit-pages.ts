/**
 * The audit of paged checkpoints page by page (README "Paged checkpoints"): a checkpoint that
 * shares pages with the stream's previous one costs the pages written since, not the state.
 *
 * At a paged checkpoint the replayed tree is compared with the root's outline (the state with
 * its large objects `{}`, by the digest of its JSON text), then per large object: each directory
 * is verified (seal, shape) the first time it is named; each page is read and compared with the
 * replayed members whose keys hash to it (values by JSON text, no key twice) unless the previous
 * checkpoint of the stream, verified this way, named the same page at the same place and no
 * patch since touched a member of that place; the members of all pages add up to the replayed
 * object's size. Together: the checkpoint holds the replayed state, key order aside (as the
 * whole-state check, whose canonical hash ignores it; the ordinals are not checked). When that
 * cannot be confirmed the caller falls back to the whole-state check.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue, StateTree } from '@stateflow/core';
import { hash } from 'node:crypto';
import type { StorageReader } from '../storage.js';
import { pageKey } from './keys.js';
import { readMany } from './page-reads.js';
import { PAGED_MIN_MEMBERS } from './paged-checkpoint.js';
import { decodeDirectory, decodePage, pageOf } from './page-records.js';
import type { CheckpointRoot, PageRef, RootObject } from './page-records.js';

/** A page verified at a checkpoint: where that checkpoint named it and how many members it holds. */
interface VerifiedPage {
  readonly index: number;
  readonly members: number;
}

/** What the latest page-wise verified checkpoint of a stream leaves for the next one. */
interface StreamPages {
  /** Per large object (its path as a key): its page count and its verified pages by reference. */
  readonly objects: Map<string, { count: number; pages: Map<string, VerifiedPage> }>;
  /** Verified directories by reference and page count. */
  readonly dirs: Map<string, PageRef[]>;
  /** Per large object, the members patches touched since (`'all'`: the object itself was replaced). */
  readonly touched: Map<string, Set<string> | 'all'>;
}

const pathKey = (path: readonly string[]): string => JSON.stringify(path);
const refKey = ([rev, n]: PageRef): string => `${rev}/${n}`;
const digest = (value: JsonValue): string => hash('sha256', JSON.stringify(value), 'base64');

/** Verifies paged checkpoints of every stream page by page during the audit's replay. */
export class PagedCheckpointAudit {
  readonly #streams = new Map<string, StreamPages>();

  /** Note a replayed patch of `stream` (O(patch × large objects)). */
  touch(stream: string, patch: JsonObject): void {
    const s = this.#streams.get(stream);
    if (s === undefined) return;
    for (const [key, touched] of s.touched) {
      if (touched === 'all') continue;
      const members = touchedMembers(patch, JSON.parse(key) as string[]);
      if (members === 'all') s.touched.set(key, 'all');
      else for (const m of members) touched.add(m);
    }
  }

  /** Forget what `stream`'s latest checkpoint left: its next one is verified page by page afresh. */
  forget(stream: string): void {
    this.#streams.delete(stream);
  }

  /**
   * Whether paged checkpoint `root` of `stream` holds `tree`'s state as far as its pages show
   * (false: not confirmed, the caller compares whole states).
   * @throws STORE_CORRUPT when a directory or a page it must read is missing or damaged
   */
  async holds(reader: StorageReader, stream: string, root: CheckpointRoot, tree: StateTree): Promise<boolean> {
    const prev = this.#streams.get(stream);
    this.#streams.delete(stream);
    const outline = tree.outline(PAGED_MIN_MEMBERS);
    if (outline.large.length !== root.objects.length || digest(outline.root) !== digest(root.record.state)) return false;
    const next: StreamPages = { objects: new Map(), dirs: new Map(), touched: new Map() };
    for (const [j, o] of root.objects.entries()) {
      const large = outline.large[j] as { path: readonly string[]; size: number };
      const key = pathKey(o.path);
      if (key !== pathKey(large.path)) return false;
      const refs = await pageRefsOf(reader, stream, o, prev?.dirs, next.dirs);
      const pages = await verifiedPages(reader, stream, { o, refs, tree }, prev, key);
      if (pages === undefined || [...pages.values()].reduce((sum, p) => sum + p.members, 0) !== large.size) return false;
      next.objects.set(key, { count: o.count, pages });
      next.touched.set(key, new Set());
    }
    this.#streams.set(stream, next);
    return true;
  }
}

/** The page references of large object `o`: its directories', verified once each (`known`: the previous checkpoint's), or the root's own (first layout). */
async function pageRefsOf(reader: StorageReader, stream: string, o: RootObject, known: Map<string, PageRef[]> | undefined, used: Map<string, PageRef[]>): Promise<PageRef[]> {
  if (!o.directories) return o.refs.list();
  const dirRefs = o.refs.list();
  const cacheKey = (ref: PageRef): string => `${refKey(ref)}/${o.count}`;
  const unknown = dirRefs.filter((ref) => known?.get(cacheKey(ref)) === undefined);
  const values = await readMany(reader, unknown.map((ref) => pageKey(stream, ...ref)));
  unknown.forEach((ref, i) => used.set(cacheKey(ref), decodeDirectory(pageKey(stream, ...ref), values[i], stream, o.count).list()));
  return dirRefs.flatMap((ref) => {
    const refs = used.get(cacheKey(ref)) ?? (known?.get(cacheKey(ref)) as PageRef[]);
    used.set(cacheKey(ref), refs);
    return refs;
  });
}

/**
 * The pages `refs` of large object `o`, each verified against `tree` — by reading it, or as
 * unchanged since `prev` — or `undefined` when one does not hold the replayed members.
 */
async function verifiedPages(reader: StorageReader, stream: string, at: { o: RootObject; refs: PageRef[]; tree: StateTree }, prev: StreamPages | undefined, key: string): Promise<Map<string, VerifiedPage> | undefined> {
  const { o, refs, tree } = at;
  const before = prev?.objects.get(key);
  const same = before?.count === o.count ? before.pages : undefined;
  const touched = prev?.touched.get(key) ?? 'all';
  const dirty = touched === 'all' ? undefined : new Set([...touched].map((m) => pageOf(m, o.count)));
  const pages = new Map<string, VerifiedPage>();
  const toRead: number[] = [];
  refs.forEach((ref, index) => {
    const seen = same?.get(refKey(ref));
    if (seen !== undefined && seen.index === index && dirty !== undefined && !dirty.has(index)) pages.set(refKey(ref), seen);
    else toRead.push(index);
  });
  const keys = toRead.map((index) => pageKey(stream, ...(refs[index] as PageRef)));
  const values = await readMany(reader, keys);
  const steps = o.path.map((k) => ({ kind: 'key' as const, key: k }));
  for (const [i, index] of toRead.entries()) {
    const entries = decodePage(keys[i] as Uint8Array, values[i], stream);
    const names = entries.map(([k]) => k);
    if (new Set(names).size !== names.length || names.some((k) => pageOf(k, o.count) !== index)) return undefined;
    const replayed = tree.membersAt(steps, names);
    if (entries.some(([, , value], e) => replayed[e] === undefined || JSON.stringify(value) !== JSON.stringify(replayed[e]))) return undefined;
    if (pages.has(refKey(refs[index] as PageRef))) return undefined;
    pages.set(refKey(refs[index] as PageRef), { index, members: entries.length });
  }
  return pages.size === refs.length ? pages : undefined;
}

/** The members of the object at key path `path` that `patch` touches, or `'all'` when it replaces the object or an ancestor. */
function touchedMembers(patch: JsonObject, path: readonly string[]): readonly string[] | 'all' {
  let at: JsonValue = patch;
  for (const key of path) {
    if (!isJsonObject(at)) return 'all';
    if (!Object.prototype.hasOwnProperty.call(at, key)) return [];
    at = at[key] as JsonValue;
  }
  return isJsonObject(at) ? Object.keys(at) : 'all';
}
