/**
 * retrieve: fetching documents of a slate folder for a retrieval request
 * (seeds/ladr-persistent-memory-with-slates.txt "retrieve: lets the LLM decide at runtime").
 */
import picomatch from 'picomatch';
import { isJsonObject } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { SlateStreamState } from './slate-state.js';
import { fileContents } from './slate-state.js';

/** The message injected when the retrieval budget is exhausted (seed text, exact). */
export const RETRIEVAL_BUDGET_MESSAGE = 'Retrieval budget exhausted. Produce your final answer now.';

/** A retrieved document. `path` is relative to the retrieve folder (`archive/old.md`). */
export interface RetrievedDocument {
  path: string;
  contents: string;
}

/** A file reachable from the retrieve folder (itself and every subfolder below it). */
interface Candidate {
  path: string;
  folder: string;
  file: string;
  subfolder: string;
  metatags: Record<string, JsonValue>;
}

function reachable(state: SlateStreamState, slate: string, base: string): Candidate[] {
  const out: Candidate[] = [];
  for (const [folderPath, folder] of Object.entries(state.slates[slate]?.folders ?? {})) {
    if (folderPath !== base && !folderPath.startsWith(`${base}/`)) continue;
    const sub = folderPath.slice(base.length + 1);
    for (const [name, file] of Object.entries(folder.files)) {
      out.push({ path: sub === '' ? name : `${sub}/${name}`, folder: folderPath, file: name, subfolder: sub, metatags: file.metatags });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function contains(value: JsonValue | undefined, needle: string | undefined): boolean {
  if (value === undefined) return false;
  if (needle === undefined) return true;
  if (typeof value === 'string') return value.includes(needle);
  if (Array.isArray(value)) return value.some((v) => (typeof v === 'string' ? v === needle : JSON.stringify(v) === needle));
  return typeof value === 'object' ? JSON.stringify(value).includes(needle) : String(value) === needle;
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The files a request selects, in request order: `files` (paths relative to the folder),
 * `subfolders` (every file below each named subfolder), `metatag` (`{name, contains}`:
 * substring of a string value, element of an array, equal text of a number or boolean; without
 * `contains`, every file that has the metatag), `glob` (picomatch over relative paths, so `*.md`
 * is this folder only and `**\/*.md` recurses). Unknown paths are ignored. Each file once.
 */
export function selectFiles(
  state: SlateStreamState,
  slate: string,
  base: string,
  request: JsonValue,
): Array<{ folder: string; file: string; path: string }> {
  if (!isJsonObject(request)) return [];
  const all = reachable(state, slate, base);
  const picked: Candidate[] = [];
  const add = (c: Candidate): void => {
    if (!picked.includes(c)) picked.push(c);
  };
  for (const p of strings(request.files)) {
    const c = all.find((x) => x.path === p);
    if (c) add(c);
  }
  for (const s of strings(request.subfolders)) {
    for (const c of all) if (c.subfolder === s || c.subfolder.startsWith(`${s}/`)) add(c);
  }
  const m = request.metatag;
  if (isJsonObject(m) && typeof m.name === 'string') {
    const needle = typeof m.contains === 'string' ? m.contains : undefined;
    for (const c of all) if (contains(c.metatags[m.name], needle)) add(c);
  }
  if (typeof request.glob === 'string') {
    const isMatch = picomatch(request.glob);
    for (const c of all) if (isMatch(c.path)) add(c);
  }
  return picked.map(({ folder, file, path }) => ({ folder, file, path }));
}

/** The document of a selected file (contents as stored now). */
export function documentOf(state: SlateStreamState, slate: string, folder: string, file: string, path: string): RetrievedDocument {
  return { path, contents: fileContents(state.slates[slate]?.folders[folder]?.files[file]) };
}
