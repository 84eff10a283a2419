/**
 * Turning a document history into transitions (cli README "Commands": `import`, `import-git`): each distinct
 * document becomes one transition that places it at a path of one stream, as the net patch from
 * the previous document (core `diff`); a document equal to the previous one (key order ignored)
 * is skipped, so revision k of the import is the k-th distinct document.
 *
 * The whole history is checked before anything is published (every patch is computed and
 * applied to a simulated state, which must then hold exactly the document), so bad input
 * publishes nothing. Only the patches are kept in memory, never every document.
 */
import {
  StateflowError,
  applyPatch,
  diff,
  hasOwn,
  isJsonObject,
  isStateflowError,
  jsonEqual,
  snapshotJson,
  parsePath,
  quotePath,
  type JsonObject,
  type JsonValue,
} from '@stateflow/core';
import type { Store, StreamId } from '@stateflow/store';
import type { Progress } from './progress.js';
import { inBatches } from './batches.js';

const EQUAL_TO_PREVIOUS = 'equal to the previous document';
/**
 * A batch of the import (one `publishMany`, one storage write): at most this many transitions,
 * and patches of at most this many bytes of JSON in all (a batch of one may be larger) — under a
 * server's default 1 MiB body limit and its 1,000-input limit when the store is a served one.
 */
const BATCH_INPUTS = 500;
const BATCH_BYTES = 512 * 1024;

/** One document of a history, or the reason it cannot be one. */
export interface HistoryEntry {
  /** Where it came from, for messages and skip reports: "line 23", "commit 1a2b3c4". */
  source: string;
  /** The document; absent when `unusable` says why the entry is skipped. */
  doc?: JsonObject;
  /** Why the entry has no usable document (e.g. the file is absent at that commit). */
  unusable?: string;
  /** Stored with the transition as its `meta` (e.g. `{ import: { line, rev } }`). */
  meta: JsonObject;
}

/** The command-line options `import` and `import-git` share. */
export interface ImportOptions {
  stream: string;
  /** `--at`: where each document is placed. */
  at: string;
  /** `--append`: continue a stream that already has revisions. */
  append?: boolean;
}

/** A skipped history entry. */
export interface SkippedEntry {
  source: string;
  reason: string;
}

/** What an import created. */
export interface ImportReport {
  stream: StreamId;
  /** The path the documents were placed at. */
  at: string;
  /** First and last revision created, or `null` when nothing was imported. */
  from: number | null;
  to: number | null;
  /** Transitions created. */
  imported: number;
  skipped: SkippedEntry[];
}

/**
 * Parse `--at`: one or more keys inside the stream's state (`lazy.history`), no scope root, no
 * historical selector, no index.
 *
 * @throws USAGE when `text` is not such a path (PATH_SYNTAX details are kept in `cause`).
 */
export function parsePlacement(text: string): string[] {
  let parsed;
  try {
    parsed = parsePath(text);
  } catch (err) {
    throw new StateflowError('USAGE', `--at ${JSON.stringify(text)} is not a path: ${(err as Error).message}`, { at: text }, { cause: err });
  }
  const keys = parsed.steps.flatMap((step) => (step.kind === 'key' ? [step.key] : []));
  if (parsed.root !== null || parsed.at !== null || keys.length !== parsed.steps.length || keys.length === 0) {
    throw new StateflowError(
      'USAGE',
      `--at ${JSON.stringify(text)} must be dotted keys inside the stream's state, without a scope root or index, e.g. --at lazy.history.`,
      { at: text },
    );
  }
  return keys;
}

/**
 * Import `entries` into `stream` at `keys` after checking all of them.
 *
 * @param entries - the history, oldest first (a source that advances `progress` as it reads).
 * @param options - `progress`: moved to the `<command>: publishing` part, advanced once per
 *   transition published; `command`: `import` or `import-git`; `append`: continue a stream that
 *   already has revisions (`--append`), default false.
 * @throws CONFLICT `{ stream, expected: 'none', actual }` when the stream already has revisions
 *   and `append` is false; CONFLICT when another writer changes the stream during the import.
 * @throws INPUT_INVALID (naming the entry) when a document cannot be stored exactly as it is;
 *   INPUT_INVALID `{ field: 'history', reason: 'no document' }` when the history has entries
 *   but none holds a usable document (a file that never parses): nothing is published.
 */
export async function importHistory(
  store: Store,
  stream: StreamId,
  keys: string[],
  entries: AsyncIterable<HistoryEntry>,
  options: { progress: Progress; command: string; append?: boolean },
): Promise<ImportReport> {
  const { progress, append = false } = options;
  const head = await store.head(stream);
  if (head.rev > 0 && !append) {
    throw new StateflowError(
      'CONFLICT',
      `Stream ${stream} already has ${head.rev} revision${head.rev === 1 ? '' : 's'}; pass --append to continue it.`,
      { stream, expected: 'none', actual: head.rev },
    );
  }
  let state = await store.state(stream);
  let previous = valueAt(state, keys);
  const planned: { patch: JsonObject; meta: JsonObject; bytes: number }[] = [];
  const skipped: SkippedEntry[] = [];
  for await (const entry of entries) {
    if (entry.doc === undefined) {
      skipped.push({ source: entry.source, reason: entry.unusable ?? 'no document' });
      continue;
    }
    jsonDocument(keys, entry);
    if (previous !== undefined && jsonEqual(previous, entry.doc)) {
      skipped.push({ source: entry.source, reason: EQUAL_TO_PREVIOUS });
      continue;
    }
    const patch = placeAt(keys, isJsonObject(previous) ? diff(previous, entry.doc) : entry.doc);
    state = checked(state, patch, keys, entry);
    planned.push({ patch, meta: entry.meta, bytes: JSON.stringify(patch).length });
    previous = entry.doc;
  }
  if (planned.length === 0 && skipped.length > 0 && skipped.every((entry) => entry.reason !== EQUAL_TO_PREVIOUS)) {
    const shown = skipped.slice(0, 3).map((entry) => `${entry.source}: ${entry.reason}`).join('; ');
    throw new StateflowError(
      'INPUT_INVALID',
      `Nothing to import: none of the ${skipped.length} entries holds a JSON object document (${shown}${skipped.length > 3 ? '; …' : ''}). ` +
        'Check that the file is the JSON document you meant.',
      { field: 'history', reason: 'no document' },
    );
  }
  progress.phase(`${options.command}: publishing`, { total: planned.length });
  let rev = head.rev;
  for await (const batch of inBatches(planned, { count: BATCH_INPUTS, size: BATCH_BYTES, sizeOf: (step) => step.bytes })) {
    // Each step changes the stream (its document differs from the one before), so each is
    // one revision: the batch expects them one after another, all or nothing.
    const inputs = batch.map((step, i) => ({ changes: { [stream]: step.patch }, expected: { [stream]: rev + i }, meta: step.meta }));
    await store.publishMany(inputs);
    rev += batch.length;
    progress.update(rev - head.rev);
  }
  return {
    stream,
    at: keys.join('.'),
    from: planned.length === 0 ? null : head.rev + 1,
    to: planned.length === 0 ? null : rev,
    imported: planned.length,
    skipped,
  };
}

/**
 * Check that an entry's document, placed at `keys`, is JSON that the store accepts before any
 * recursive comparison walks it (a document nested 100,000 levels deep would overflow the stack).
 * @throws INPUT_INVALID `{ field: source, reason }` with core's reason (`too-deep`, `not-json`)
 */
function jsonDocument(keys: string[], entry: HistoryEntry): void {
  try {
    snapshotJson(placeAt(keys, entry.doc as JsonObject));
  } catch (err) {
    if (!isStateflowError(err, 'PATCH_INVALID')) throw err;
    const where = err.details.at === undefined ? '' : ` at ${quotePath(err.details.at)}`;
    throw new StateflowError('INPUT_INVALID', `${entry.source}: the document cannot be stored${where}: ${err.details.problem ?? err.message}`, { field: entry.source, reason: err.details.reason }, { cause: err });
  }
}

function checked(state: JsonObject, patch: JsonObject, keys: string[], entry: HistoryEntry): JsonObject {
  let next: JsonObject;
  try {
    next = applyPatch(state, patch);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StateflowError('INPUT_INVALID', `${entry.source}: the document cannot be stored: ${reason}`, { field: entry.source, reason }, { cause: err });
  }
  const stored = valueAt(next, keys);
  if (stored === undefined || entry.doc === undefined || !jsonEqual(stored, entry.doc)) {
    throw new StateflowError(
      'INPUT_INVALID',
      `${entry.source}: the document would not read back as written (stored values cannot hold null, and keys like "[0]" address array elements): fix the document or leave it out.`,
      { field: entry.source, reason: 'not storable' },
    );
  }
  return next;
}

function valueAt(state: JsonObject, keys: string[]): JsonValue | undefined {
  let value: JsonValue | undefined = state;
  for (const key of keys) {
    if (!isJsonObject(value) || !hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

function placeAt(keys: string[], value: JsonObject): JsonObject {
  return keys.reduceRight<JsonObject>((inner, key) => ({ [key]: inner }), value);
}
