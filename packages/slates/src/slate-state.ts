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
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { JsonObject } from '@stateflow/core';
import { decodeStored, recordDecoder } from './internal/stored-record.js';
import type { Ladder } from './load-ladder.js';

const Time = Type.String({ description: 'ISO 8601 UTC' });

/** The layout of {@link EntryState}. */
const EntryStateSchema = Type.Object({ tick: Type.Integer({ minimum: 0 }), text: Type.String(), at: Time });

/** One piece of a file's contents, in write order. `tick` orders entries for FIFO eviction; `at` is the write time. */
export type EntryState = Static<typeof EntryStateSchema>;

/** The layout of {@link FileState}. */
const FileStateSchema = Type.Object({
  entries: Type.Array(EntryStateSchema),
  metatags: Type.Unsafe<JsonObject>(Type.Record(Type.String(), Type.Unknown())),
  created: Time,
  modified: Time,
  lastRead: Type.Optional(Time),
  used: Type.Integer({ minimum: 0 }),
});

/**
 * A file: contents as entries (joined with a blank line), user metatags, times. `lastRead`: time
 * of the last read of its contents, when it was ever read; `used`: logical time of the last read
 * of its contents, or of its creation (LRU order).
 */
export type FileState = Static<typeof FileStateSchema>;

/** The layout of {@link FolderState}. */
const FolderStateSchema = Type.Object({ files: Type.Record(Type.String(), FileStateSchema) });

/** One folder's files. */
export type FolderState = Static<typeof FolderStateSchema>;

/** The layout of {@link SlateStreamState}. */
const SlateStreamStateSchema = Type.Object({
  layout: Type.Literal(1),
  tick: Type.Integer({ minimum: 0 }),
  slates: Type.Record(Type.String(), Type.Object({ folders: Type.Record(Type.String(), FolderStateSchema) })),
});

/** The whole stream state. */
export type SlateStreamState = Static<typeof SlateStreamStateSchema>;

const slateStreamState = recordDecoder(SlateStreamStateSchema, 'slate stream state');

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

/**
 * A mutable copy of the state stored in slate stream `stream` (empty → a fresh layout; `stream`
 * `null`: a call without a session, on fresh slates).
 * @throws STORE_CORRUPT `{ detail, stream }` when it is not a slate stream's layout.
 */
export function toWorkingState(stream: string | null, stored: JsonObject): SlateStreamState {
  return stream === null ? freshState() : structuredClone(decodeSlateState(stream, stored));
}

/**
 * The initial state of a new session's slate stream: every declared file initialised per its
 * `init`. The session manager publishes it with the session record.
 * @param at creation time
 */
export function createSlateState(ladder: Ladder, at: Date = new Date()): SlateStreamState {
  return materialize(ladder, freshState(), at.toISOString());
}

/** The layout of a slate stream with no revision: no slates. */
function freshState(): SlateStreamState {
  return { layout: 1, tick: 0, slates: {} };
}

/**
 * The state stored in slate stream `stream`, read as its layout (a stream with no revision has
 * no slates).
 * @throws STORE_CORRUPT `{ detail, stream }` when it is not a slate stream's layout: a record
 *   that does not decode fails closed (DESIGN.md "Fail closed"), nothing is rewritten.
 */
export function decodeSlateState(stream: string, stored: JsonObject): SlateStreamState {
  return Object.keys(stored).length === 0 ? freshState() : decodeStored(slateStreamState, stored, stream);
}

/** A file's contents: its entries joined with a blank line (`''` when it has none). */
export function fileContents(file: FileState | undefined): string {
  return file === undefined ? '' : file.entries.map((e) => e.text).join('\n\n');
}

/** Every slate's file contents: `{ <title>: { <folder path>: { <file>: <contents> } } }`. */
export function slateContents(state: SlateStreamState): Record<string, Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, Record<string, string>>> = {};
  for (const [title, slate] of Object.entries(state.slates)) {
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
