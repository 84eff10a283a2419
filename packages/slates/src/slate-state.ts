/**
 * Layout of a ladder session's slate stream `slate:<ladder>:<session>` (DESIGN.md "Ladder slates
 * as a projection") and its creation from the declared slates.
 *
 * ```
 * { layout: 1, tick: <logical clock>,
 *   slates: { <title>: { folders: { <folder path>: { files: { <file>: FileState } } } } } }
 * ```
 * Folder paths are `/`-joined (`wins/archive`). System metatags are never stored.
 */
import type { JsonObject } from '@stateflow/core';
import type { Ladder } from './load-ladder.js';

/** One piece of a file's contents, in write order. `tick` orders entries for FIFO eviction. */
export interface EntryState {
  tick: number;
  text: string;
  /** Write time, ISO 8601 UTC. */
  at: string;
}

/** A file: contents as entries (joined with a blank line), user metatags, times. */
export interface FileState {
  entries: EntryState[];
  metatags: JsonObject;
  created: string;
  modified: string;
  /** Time of the last read of its contents, when it was ever read. */
  lastRead?: string;
  /** Logical time of the last read of its contents, or of its creation (LRU order). */
  used: number;
}

/** One folder's files. */
export interface FolderState {
  files: Record<string, FileState>;
}

/** The whole stream state. */
export interface SlateStreamState {
  layout: 1;
  tick: number;
  slates: Record<string, { folders: Record<string, FolderState> }>;
}

/**
 * Add every declared slate, folder and file that `state` lacks, initialised per `init`
 * (seeds/ladr-stateful-sessions.txt "Every declared file ... is initialized per its init:").
 * Mutates and returns `state`.
 */
export function materialize(ladder: Ladder, state: SlateStreamState, at: string): SlateStreamState {
  for (const [title, slate] of ladder.catalog) {
    const s = (state.slates[title] ??= { folders: {} });
    for (const [path, folder] of slate.folders) {
      const f = (s.folders[path] ??= { files: {} });
      for (const file of folder.files.values()) {
        if (!file.declared || f.files[file.name] !== undefined) continue;
        state.tick += 1;
        const entries: EntryState[] = file.init === undefined ? [] : [{ tick: state.tick, text: file.init, at }];
        f.files[file.name] = { entries, metatags: {}, created: at, modified: at, used: state.tick };
      }
    }
  }
  return state;
}

/** A mutable copy of a stored stream state (empty → a fresh layout). */
export function toWorkingState(stored: JsonObject): SlateStreamState {
  return structuredClone(toSlateStreamState(stored));
}

/**
 * The initial state of a new session's slate stream: every declared file initialised per its
 * `init`. The session manager publishes it with the session record.
 * @param at creation time
 */
export function createSlateState(ladder: Ladder, at: Date = new Date()): JsonObject {
  return materialize(ladder, toWorkingState({}), at.toISOString()) as unknown as JsonObject;
}

/** A stored slate stream state read as its layout (a stream with no revision has no slates). */
export function toSlateStreamState(stored: JsonObject): SlateStreamState {
  return (stored.layout === undefined ? { layout: 1, tick: 0, slates: {} } : stored) as unknown as SlateStreamState;
}

/** A file's contents: its entries joined with a blank line (`''` when it has none). */
export function fileContents(file: FileState | undefined): string {
  return file === undefined ? '' : file.entries.map((e) => e.text).join('\n\n');
}

/** Every slate's file contents: `{ <title>: { <folder path>: { <file>: <contents> } } }`. */
export function slateContents(state: SlateStreamState | JsonObject): Record<string, Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, Record<string, string>>> = {};
  const slates = (state as SlateStreamState).slates ?? {};
  for (const [title, slate] of Object.entries(slates)) {
    const s: Record<string, Record<string, string>> = (out[title] = {});
    for (const [path, folder] of Object.entries(slate.folders)) {
      const f: Record<string, string> = (s[path] = {});
      for (const [name, file] of Object.entries(folder.files)) f[name] = fileContents(file);
    }
  }
  return out;
}

/** A file of a slate, as a transition names it. */
export interface SlateFileRef {
  slate: string;
  folder: string;
  file: string;
}

/** Members of a stored file that only record reads (LRU recency), not a change of the file. */
const READ_MARKS: ReadonlySet<string> = new Set(['lastRead', 'used']);

/**
 * The files a net patch of the slate stream touched: `changed` when their contents, metatags or
 * times changed (created, written, evicted, deleted), `read` when only their read recency moved.
 * Each list in stream order (slate, folder, file as the patch holds them).
 */
export function touchedFiles(patch: JsonObject): { changed: SlateFileRef[]; read: SlateFileRef[] } {
  const changed: SlateFileRef[] = [];
  const read: SlateFileRef[] = [];
  const members = (value: unknown): Array<[string, unknown]> =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
  for (const [slate, slatePatch] of members(patch.slates)) {
    for (const [folder, folderPatch] of members((slatePatch as { folders?: unknown } | null)?.folders)) {
      for (const [file, filePatch] of members((folderPatch as { files?: unknown } | null)?.files)) {
        const keys = members(filePatch).map(([key]) => key);
        const onlyRead = filePatch !== null && keys.length > 0 && keys.every((key) => READ_MARKS.has(key));
        (onlyRead ? read : changed).push({ slate, folder, file });
      }
    }
  }
  return { changed, read };
}
