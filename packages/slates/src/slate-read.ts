/**
 * slateRead: the four read modes and the computed system metatags
 * (seeds/ladr-reads-and-writes.txt "The combination of these fields determines what the read
 * returns"; seeds/ladr-persistent-memory-with-slates.txt "system metatags").
 */
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { SlateRef } from './config-types.js';
import type { Catalog } from './internal/catalog.js';
import { isSystemMetatag } from './internal/catalog.js';
import type { FileState, FolderState, SlateStreamState } from './slate-state.js';
import { fileContents } from './slate-state.js';
import type { TokenCounter } from './token-counter.js';

/**
 * One row of the `index` system metatag. `size` is UTF-8 bytes, `tokens` per the encoding;
 * `metatags`: the user metatags that have a value. (A type, not an interface: a row is a JSON
 * value as it is.)
 */
export type IndexRow = {
  file: string;
  size: number;
  tokens: number;
  created: string;
  modified: string;
  metatags?: JsonObject;
};

/** A node of the `tree` system metatag; `files`/`subfolders` are absent beyond the depth. */
export type TreeNode = {
  folder: string;
  files?: string[];
  subfolders?: TreeNode[];
};

function folderState(state: SlateStreamState, slate: string, folder: string): FolderState | undefined {
  return state.slates[slate]?.folders[folder];
}

function sortedFiles(folder: FolderState | undefined): Array<[string, FileState]> {
  return Object.entries(folder?.files ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function systemValue(tag: string, file: FileState): JsonValue {
  if (tag === 'created') return file.created;
  if (tag === 'modified') return file.modified;
  if (tag === 'size') return Buffer.byteLength(fileContents(file), 'utf8');
  return null;
}

/**
 * The `index` of a folder: one row per file that holds something — contents, or a user metatag
 * with a value — sorted by file name. A blank file (declared `init: blank` and not yet written,
 * or emptied by eviction) is not listed, so the index of an empty folder is `[]`
 * (seeds/ladr-persistent-memory-with-slates.txt: "On the first call, the slate is empty; the
 * field renders blank or "[]""). Its own metatags (`created`, `modified`, `size`) stay readable.
 */
export function folderIndex(state: SlateStreamState, slate: string, folder: string, count: TokenCounter): IndexRow[] {
  const listed = sortedFiles(folderState(state, slate, folder)).filter(([, file]) => fileContents(file) !== '' || Object.keys(file.metatags).length > 0);
  return listed.map(([name, file]) => {
    const contents = fileContents(file);
    const row: IndexRow = {
      file: name,
      size: Buffer.byteLength(contents, 'utf8'),
      tokens: count(contents),
      created: file.created,
      modified: file.modified,
    };
    if (Object.keys(file.metatags).length > 0) row.metatags = file.metatags;
    return row;
  });
}

/** The `tree` of a folder down to `depth` levels of subfolders (unbounded when undefined). */
export function folderTree(
  catalog: Catalog,
  state: SlateStreamState,
  slate: string,
  folder: string,
  depth: number | undefined,
): TreeNode {
  const info = catalog.get(slate)?.folders.get(folder);
  const node: TreeNode = { folder: info?.name ?? folder, files: sortedFiles(folderState(state, slate, folder)).map(([n]) => n) };
  node.subfolders = (info?.subfolders ?? []).map((sub) =>
    depth === 0 ? { folder: sub } : folderTree(catalog, state, slate, `${folder}/${sub}`, depth === undefined ? undefined : depth - 1),
  );
  return node;
}

/**
 * Resolve a slateRead `from` against a slate state. Modes:
 * - file, no metatag → the contents string (`''` when blank);
 * - file + metatag → the value (`null` when the user metatag has no value yet);
 *   `index`/`tree` on a file give the folder's index/tree;
 * - no file + `index` → {@link folderIndex}; no file + `tree` → {@link folderTree};
 * - no file + other metatag → `[{file, value}]` for every file that has it (`[]` if none),
 *   sorted by file name; `created`/`modified`/`size` exist on every file.
 */
export function readSlate(catalog: Catalog, state: SlateStreamState, ref: SlateRef, count: TokenCounter): JsonValue {
  const { slate, folder, file, metatag } = ref;
  if (metatag === 'index') return folderIndex(state, slate, folder, count);
  if (metatag === 'tree') return folderTree(catalog, state, slate, folder, ref.depth);
  const files = folderState(state, slate, folder)?.files ?? {};
  if (file !== undefined) {
    const f = files[file];
    if (metatag === undefined) return fileContents(f);
    if (f === undefined) return null;
    return isSystemMetatag(metatag) ? systemValue(metatag, f) : (f.metatags[metatag] ?? null);
  }
  const rows: JsonValue[] = [];
  for (const [name, f] of sortedFiles(folderState(state, slate, folder))) {
    const value = isSystemMetatag(metatag as string) ? systemValue(metatag as string, f) : f.metatags[metatag as string];
    if (value !== undefined && value !== null) rows.push({ file: name, value });
  }
  return rows;
}

/** How a read value is rendered into a prompt: strings as-is, `null` blank, others compact JSON. */
export function renderValue(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A file's metatags as an inspector shows them: user metatags with a value, and the system ones. */
export interface FileMetatags {
  user: JsonObject;
  system: { created: string; modified: string; size: number; tokens: number; lastRead?: string };
}

/**
 * Every file's metatags: `{ <title>: { <folder path>: { <file>: FileMetatags } } }`. `size` is
 * UTF-8 bytes of the contents, `tokens` per `count`; `lastRead` is present once the contents
 * were read.
 */
export function slateMetatags(state: SlateStreamState, count: TokenCounter): Record<string, Record<string, Record<string, FileMetatags>>> {
  const out: Record<string, Record<string, Record<string, FileMetatags>>> = {};
  for (const [title, slate] of Object.entries(state.slates)) {
    const s: Record<string, Record<string, FileMetatags>> = (out[title] = {});
    for (const [path, folder] of Object.entries(slate.folders)) {
      const f: Record<string, FileMetatags> = (s[path] = {});
      for (const [name, file] of sortedFiles(folder)) {
        const contents = fileContents(file);
        const system: FileMetatags['system'] = {
          created: file.created,
          modified: file.modified,
          size: Buffer.byteLength(contents, 'utf8'),
          tokens: count(contents),
        };
        if (file.lastRead !== undefined) system.lastRead = file.lastRead;
        f[name] = { user: file.metatags, system };
      }
    }
  }
  return out;
}
