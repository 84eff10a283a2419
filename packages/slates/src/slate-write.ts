/**
 * Applying one write to a slate state: file contents (`append` / `overwrite` / `mergeByKey`),
 * typed metatag writes, and the folder token budget with FIFO / LRU / reject eviction
 * (seeds/ladr-reads-and-writes.txt "Three policies control how writes interact with existing
 * content"; seeds/ladr-persistent-memory-with-slates.txt "Every folder has a tokenLimit";
 * DESIGN.md "Decisions: Token budgets").
 */
import { isJsonObject, jsonEqual } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { MetatagType, WritePolicy, WriteTarget } from './config-types.js';
import { notJsonReason, parseJsonText } from './extract-json.js';
import { jsonCopy } from './json-copy.js';
import type { Catalog, FolderInfo } from './internal/catalog.js';
import type { EntryState, FileState, SlateStreamState } from './slate-state.js';
import { fileContents } from './slate-state.js';
import type { TokenCounter } from './token-counter.js';

/** One write request. `value` is a string (text) or JSON (mergeByKey, metatags). */
export interface WriteRequest {
  to: WriteTarget;
  on: WritePolicy;
  key?: string;
  value: JsonValue;
  /** Step id and node index that asked for the write (reported with evictions and refusals). */
  step: string;
  node: number;
}

/** An entry dropped to make room for a write. */
export interface Evicted {
  slate: string;
  folder: string;
  file: string;
  tokens: number;
  text: string;
  /** Step and node whose write caused the eviction. */
  step: string;
  node: number;
}

/** A write that was not applied, and why. */
export interface Refused {
  slate: string;
  folder: string;
  file: string;
  metatag?: string;
  step: string;
  node: number;
  reason: string;
  /** Tokens of the refused content (file writes). */
  tokens?: number;
  /** Folder budget in tokens (budget refusals). */
  limit?: number;
}

/** Outcome of {@link applyWrite}. A no-op (nothing to add) changes nothing and reports nothing. */
export type WriteOutcome = { status: 'written'; evicted: Evicted[] } | { status: 'refused'; refused: Refused } | { status: 'noop' };

/** Context shared by the writes of one ladder call. */
export interface WriteContext {
  catalog: Catalog;
  count: TokenCounter;
  /** Time of the call, ISO 8601. */
  at: string;
}

function containsNull(value: JsonValue): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(containsNull);
  if (isJsonObject(value)) return Object.values(value).some(containsNull);
  return false;
}

function asText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asArray(value: JsonValue): JsonValue[] {
  return Array.isArray(value) ? value : [value];
}

/** Merge `incoming` into `existing` by `key`: matching keys replaced in place, others appended. */
export function mergeByKey(existing: JsonValue[], incoming: JsonValue[], key: string): JsonValue[] {
  const merged = [...existing];
  for (const item of incoming) {
    const k = isJsonObject(item) ? item[key] : undefined;
    const at = k === undefined ? -1 : merged.findIndex((e) => isJsonObject(e) && e[key] !== undefined && jsonEqual(e[key] as JsonValue, k));
    if (at === -1) merged.push(item);
    else merged[at] = item;
  }
  return merged;
}

/** Convert a value to a metatag's declared type, or say why it does not fit. */
function coerce(type: MetatagType, value: JsonValue): { value: JsonValue } | { error: string } {
  const strings = Array.isArray(value) && value.every((v) => typeof v === 'string');
  const numeric = (v: JsonValue): number | undefined =>
    typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { value };
      return strings ? { value: (value as string[]).join('\n\n') } : { value: JSON.stringify(value) };
    case 'number': {
      const n = numeric(Array.isArray(value) && value.length === 1 ? (value[0] as JsonValue) : value);
      return n === undefined ? { error: `metatag type number does not accept ${JSON.stringify(value)}` } : { value: n };
    }
    case 'boolean': {
      const v = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (typeof v === 'boolean') return { value: v };
      if (v === 'true' || v === 'false') return { value: v === 'true' };
      return { error: `metatag type boolean does not accept ${JSON.stringify(value)}` };
    }
    case 'string[]':
      if (typeof value === 'string') return { value: [value] };
      return strings ? { value } : { error: `metatag type string[] does not accept ${JSON.stringify(value)}` };
    case 'number[]': {
      const list = asArray(value).map(numeric);
      return list.every((n) => n !== undefined)
        ? { value: list as number[] }
        : { error: `metatag type number[] does not accept ${JSON.stringify(value)}` };
    }
    case 'json':
      return { value };
  }
}

function metatagValue(type: MetatagType, on: WritePolicy, key: string | undefined, existing: JsonValue | undefined, v: JsonValue): JsonValue {
  if (on === 'overwrite' || existing === undefined) {
    return on === 'mergeByKey' ? mergeByKey([], asArray(v), key as string) : v;
  }
  if (on === 'mergeByKey') return mergeByKey(asArray(existing), asArray(v), key as string);
  switch (type) {
    case 'string':
      return `${existing as string}\n\n${v as string}`;
    case 'string[]':
    case 'number[]':
      return [...(existing as JsonValue[]), ...(v as JsonValue[])];
    case 'json':
      return [...asArray(existing), ...asArray(v)];
    default:
      return v; // number, boolean: nothing to join, the newer value stands
  }
}

function folderTokens(folder: Record<string, FileState>, count: TokenCounter): number {
  let total = 0;
  for (const f of Object.values(folder)) for (const e of f.entries) total += count(e.text);
  return total;
}

/** Eviction candidates in drop order. The write's own new entry is never a candidate. */
function candidates(info: FolderInfo, files: Record<string, FileState>, keep: EntryState): Array<[string, EntryState]> {
  const all: Array<[string, EntryState, number]> = [];
  for (const [name, f] of Object.entries(files)) for (const e of f.entries) if (e !== keep) all.push([name, e, f.used]);
  if (info.evictionPolicy === 'LRU') {
    all.sort((a, b) => a[2] - b[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) || a[1].tick - b[1].tick);
  } else {
    all.sort((a, b) => a[1].tick - b[1].tick);
  }
  return all.map(([name, e]) => [name, e]);
}

/**
 * Apply one write to `state` (mutated only when the outcome is `written`).
 *
 * File contents: `append` adds an entry (empty text is a no-op), `overwrite` replaces every
 * entry, `mergeByKey` parses the contents as a JSON array (blank is `[]`) and stores the merged
 * array as one entry. Then the folder budget: an entry larger than the whole budget is refused;
 * over budget, `reject` refuses, `FIFO` drops the oldest entries of the folder, `LRU` drops the
 * entries of the least-recently-read files first (oldest first within a file).
 *
 * Metatags: the value is converted to the declared type; `append` joins strings with a blank
 * line, concatenates arrays, and for `json` appends to the existing array (wrapping a scalar);
 * values containing `null` are refused. Metatags do not count toward the budget.
 *
 * A value that is not JSON by core's definition (`snapshotJson`: NaN/±Infinity, lone
 * surrogates, nesting beyond 512 levels …) is refused; so are file contents that `mergeByKey`
 * cannot read as a core-JSON array.
 */
export function applyWrite(ctx: WriteContext, state: SlateStreamState, req: WriteRequest): WriteOutcome {
  const { slate, folder, file, metatag } = req.to;
  const info = ctx.catalog.get(slate)?.folders.get(folder) as FolderInfo;
  const refuse = (reason: string, extra: Partial<Refused> = {}): WriteOutcome => ({
    status: 'refused',
    refused: { slate, folder, file, ...(metatag === undefined ? {} : { metatag }), step: req.step, node: req.node, reason, ...extra },
  });
  const copy = jsonCopy(req.value);
  if (!('value' in copy)) return refuse(notJsonReason(copy));
  const value = copy.value;
  if (containsNull(value)) return refuse('the value contains null, which slates never store');
  const files = (((state.slates[slate] ??= { folders: {} }).folders[folder] ??= { files: {} }).files);
  const existing = files[file];
  const nextTick = state.tick + 1;
  const target: FileState = existing
    ? structuredClone(existing)
    : { entries: [], metatags: {}, created: ctx.at, modified: ctx.at, used: nextTick };
  target.modified = ctx.at;

  if (metatag !== undefined) {
    const type = info.files.get(file)?.metatags.get(metatag) ?? info.metatags.get(metatag) ?? 'json';
    const coerced = coerce(type, value);
    if ('error' in coerced) return refuse(coerced.error);
    if (req.on === 'mergeByKey' && existing?.metatags[metatag] !== undefined && !Array.isArray(existing.metatags[metatag])) {
      return refuse(`mergeByKey needs a JSON array in metatag "${metatag}"`);
    }
    target.metatags[metatag] = metatagValue(type, req.on, req.key, existing?.metatags[metatag], coerced.value);
    files[file] = target;
    state.tick = nextTick;
    return { status: 'written', evicted: [] };
  }

  let text: string;
  if (req.on === 'mergeByKey') {
    const contents = fileContents(existing);
    const current = contents.trim() === '' ? { value: [] } : parseJsonText(contents);
    if (current === undefined || !('value' in current) || !Array.isArray(current.value)) {
      return refuse(`mergeByKey needs the contents of "${file}" to be a JSON array`);
    }
    text = JSON.stringify(mergeByKey(current.value, asArray(value), req.key as string));
  } else {
    text = asText(value);
    if (text === '' && req.on === 'append') return { status: 'noop' };
  }
  const entry: EntryState = { tick: nextTick, text, at: ctx.at };
  target.entries = req.on === 'append' ? [...target.entries, entry] : [entry];

  const tokens = ctx.count(text);
  const limit = info.tokenLimit;
  const trial = { ...files, [file]: target };
  const evicted: Evicted[] = [];
  if (limit !== null) {
    if (tokens > limit) {
      return refuse(`an entry of ${tokens} tokens exceeds the whole budget of folder "${folder}" (${limit} tokens)`, { tokens, limit });
    }
    let total = folderTokens(trial, ctx.count);
    if (total > limit && info.evictionPolicy === 'reject') {
      return refuse(`folder "${folder}" would hold ${total} tokens, over its budget of ${limit} tokens (evictionPolicy: reject)`, {
        tokens,
        limit,
      });
    }
    for (const [name, victim] of total > limit ? candidates(info, trial, entry) : []) {
      const owner = (trial[name] = name === file ? target : structuredClone(trial[name] as FileState));
      owner.entries = owner.entries.filter((e) => e.tick !== victim.tick);
      // Eviction changes the file: its `modified` system metatag moves with it (`size` is computed).
      owner.modified = ctx.at;
      const t = ctx.count(victim.text);
      total -= t;
      evicted.push({ slate, folder, file: name, tokens: t, text: victim.text, step: req.step, node: req.node });
      if (total <= limit) break;
    }
  }
  Object.assign(files, trial);
  state.tick = nextTick;
  return { status: 'written', evicted };
}
