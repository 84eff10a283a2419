/**
 * The lossless mapping between any JSON value (what LangGraph's serializer writes) and a value
 * the Stateflow store accepts in a state (README "The stored layout", "Value mapping").
 *
 * Stateflow states are JSON without `null` (`null` deletes a key in a patch), with no key that
 * looks like an index selector (`"[1]"`), and with well-formed Unicode only. Arrays that change
 * length are replaced whole by core's `diff`, so a growing message list would cost the whole
 * list per step. The mapping therefore:
 *
 * | JSON value                              | stored as                                     |
 * | --------------------------------------- | --------------------------------------------- |
 * | `null`                                  | `{"$null": true}`                             |
 * | a string with a lone surrogate          | `{"$str": "<its JSON text, \\u-escaped>"}`    |
 * | an array of ≤ 16 numbers, booleans and well-formed strings | the same array           |
 * | any other array of ≤ 64 items           | `{"$len": n, "0": item0, …, "n-1": item}`     |
 * | a longer array                          | `{"$len": n, "$pages": {…}}` (below)          |
 * | an object                               | an object with each key escaped (below)       |
 * | a number, boolean, well-formed string   | itself                                        |
 *
 * Pages: a longer array's items sit in pages of 64 (`{"64": item64, …, "127": item127}`, keyed
 * by the item's index), and `$pages` maps the first index of each block to the block. A block is
 * as large as the power of 64 at or below its first index (64 at least): items 0–4,095 in 64
 * pages; then blocks of 4,096 items (64 pages each, keyed by their first index) up to 262,143;
 * then blocks of 262,144 (64 blocks of 4,096), and so on. An item's place therefore depends on
 * its index alone, never on the array's length, and every object on its path has at most 64
 * keys (`$pages`: 64 + 63 per power of 64 above 4,096): appending writes `$len` and the new
 * items along their paths, so the net patch — and what any store copies to apply it — is the
 * new items, whatever the array's length. Arrays of up to 64 items keep the flat form (and
 * threads stored before pages existed have flat arrays of any length: both read).
 *
 * Keys: a well-formed key that starts with neither `$` nor `[` is kept; one that starts with
 * `$` or `[` gets one more `$` in front (`"$ref"` → `"$$ref"`, `"[1]"` → `"$[1]"`); a key with a
 * lone surrogate is written `$` + its JSON text (`$"\ud800"`). Tags (`$null`, `$str`, `$len`,
 * `$pages`) are the only keys that start with a single `$` followed by a letter, so no escaped
 * key can be read as a tag. Decoding goes straight to JSON text, so keys such as `__proto__`
 * stay data and the serializer reads exactly the text it would have read from any other saver.
 */
import { StateflowError, hasOwn, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';

/** Arrays up to this length whose items are all plain scalars stay JSON arrays (readability). */
const INLINE_ARRAY_MAX = 16;

const NULL_TAG = '$null';
const STRING_TAG = '$str';
const LENGTH_TAG = '$len';
const PAGES_TAG = '$pages';

/** Items of a page, and the fan-out of every block above pages; arrays up to this length stay flat. */
const PAGE_SIZE = 64;

/** Whether `text` is well-formed UTF-16 (no lone surrogate): V8's native check (Node ≥ 20). */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** The stored key for an object key (see the module header). */
export function escapeKey(key: string): string {
  if (!isWellFormed(key)) return `$${JSON.stringify(key)}`;
  const first = key.charCodeAt(0);
  return first === 0x24 /* $ */ || first === 0x5b /* [ */ ? `$${key}` : key;
}

/**
 * The original key of a stored key.
 * @throws StateflowError `STORE_CORRUPT` for a `$`-key that no escape produces (a tag in the
 *   wrong place).
 */
export function unescapeKey(stored: string): string {
  if (stored.charCodeAt(0) !== 0x24) return stored;
  const second = stored.charCodeAt(1);
  if (second === 0x24 || second === 0x5b) return stored.slice(1);
  if (second === 0x22 /* " */) return JSON.parse(stored.slice(1)) as string;
  throw corrupt(`key ${JSON.stringify(stored)} is neither data nor an escaped key`);
}

/** Thrown by {@link encodeJson} when a value nests deeper than its `maxDepth`. */
export class TooDeepError extends Error {
  constructor() {
    super('value nests deeper than the stored form allows');
    this.name = 'TooDeepError';
  }
}

/**
 * Map a JSON value (as `JSON.parse` returns it) to its stored form.
 * @param maxDepth containers allowed on any path (inclusive); deeper values throw
 *   {@link TooDeepError}, so the caller can store them another way before the store refuses them.
 * @throws TypeError for a value that is not JSON (the caller passes parser output only).
 */
export function encodeJson(value: unknown, maxDepth = Number.POSITIVE_INFINITY): JsonValue {
  return encodeAt(value, maxDepth);
}

/**
 * The stored form of an array that is `mapped`'s array (a `{"$len": n, …}` form, as
 * {@link encodeJson} wrote it) with `appended` items after its end: `mapped`'s items and its
 * full pages are kept as they are (shared), only the new items and the objects on their paths
 * are new. Equal, as JSON, to `encodeJson` of the whole array with the same `maxDepth`;
 * `undefined` when `mapped` is not such a form, or is a flat array that would become paged (its
 * items move one page deeper, so the caller maps the whole array once).
 * @throws TooDeepError as {@link encodeJson}.
 */
export function encodeAppended(mapped: JsonValue, appended: unknown[], maxDepth = Number.POSITIVE_INFINITY): JsonObject | undefined {
  if (!isJsonObject(mapped) || typeof mapped[LENGTH_TAG] !== 'number') return undefined;
  if (maxDepth < 1) throw new TooDeepError();
  const length = mapped[LENGTH_TAG];
  const total = length + appended.length;
  const item: ItemAt = (index, depthLeft) => encodeAt(appended[index - length], depthLeft);
  const pages = mapped[PAGES_TAG];
  if (isJsonObject(pages)) return pagedForm(total, item, maxDepth - 1, { pages, length });
  if (total > PAGE_SIZE) return undefined;
  // A key loop, not a spread: the stored form is a frozen state's, and V8 copies a frozen object
  // slower by spread. Its keys are `$len` and indexes only (no `__proto__`).
  const out: JsonObject = {};
  for (const key in mapped) out[key] = mapped[key] as JsonValue;
  out[LENGTH_TAG] = total;
  for (let i = length; i < total; i++) out[String(i)] = item(i, maxDepth - 1);
  return out;
}

/** The stored form of item `index` of an array, encoded with `depthLeft` containers left. */
type ItemAt = (index: number, depthLeft: number) => JsonValue;

/** An array already stored in pages: its length and its `$pages` object. */
interface PagedArray {
  pages: JsonObject;
  length: number;
}

/**
 * The items a block starting at index `start` holds: the power of 64 at or below `start`, and
 * 64 at least (see the module header). Every block starts at a multiple of its own size.
 */
function blockSize(start: number): number {
  let size = PAGE_SIZE;
  while (size * PAGE_SIZE <= start) size *= PAGE_SIZE;
  return size;
}

/**
 * `{"$len": length, "$pages": …}` for `length` (> 64) items; `depthLeft`: containers allowed
 * below the array's own object. With `kept` (the same array's first items, stored), its full
 * blocks are reused as they are and its items where they are stored; `item` is asked for the
 * others only.
 */
function pagedForm(length: number, item: ItemAt, depthLeft: number, kept?: PagedArray): JsonObject {
  if (depthLeft < 1) throw new TooDeepError();
  const pages: JsonObject = {};
  for (let start = 0; start < length; start += blockSize(start)) {
    const key = String(start);
    pages[key] = block(start, blockSize(start), length, item, depthLeft - 1, objectAt(kept?.pages, key), kept?.length ?? 0);
  }
  return { [LENGTH_TAG]: length, [PAGES_TAG]: pages };
}

/** The block of `size` items from `start` (a page when `size` is 64); `old`: the kept array's block there. */
function block(start: number, size: number, length: number, item: ItemAt, depthLeft: number, old: JsonObject | undefined, keptLength: number): JsonObject {
  if (old !== undefined && start + size <= keptLength) return old;
  if (depthLeft < 1) throw new TooDeepError();
  const out: JsonObject = {};
  const step = size / PAGE_SIZE;
  const end = Math.min(start + size, length);
  for (let at = start; at < end; at += step) {
    const key = String(at);
    if (step > 1) out[key] = block(at, step, length, item, depthLeft - 1, objectAt(old, key), keptLength);
    else out[key] = old?.[key] ?? item(at, depthLeft - 1);
  }
  return out;
}

function objectAt(object: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = object?.[key];
  return isJsonObject(value) ? value : undefined;
}

function encodeAt(value: unknown, depthLeft: number): JsonValue {
  if (value === null) return { [NULL_TAG]: true };
  switch (typeof value) {
    case 'number':
    case 'boolean':
      return value;
    case 'string':
      return isWellFormed(value) ? value : { [STRING_TAG]: JSON.stringify(value) };
    case 'object':
      if (depthLeft < 1) throw new TooDeepError();
      return Array.isArray(value) ? encodeArray(value, depthLeft - 1) : encodeObject(value as Record<string, unknown>, depthLeft - 1);
    default:
      throw new TypeError(`not a JSON value: ${typeof value}`);
  }
}

function isInlineItem(item: unknown): boolean {
  return typeof item === 'number' || typeof item === 'boolean' || (typeof item === 'string' && isWellFormed(item));
}

function encodeArray(items: unknown[], depthLeft: number): JsonValue {
  if (items.length <= INLINE_ARRAY_MAX && items.every(isInlineItem)) return items.slice() as JsonValue;
  if (items.length > PAGE_SIZE) return pagedForm(items.length, (index, left) => encodeAt(items[index], left), depthLeft);
  const out: JsonObject = { [LENGTH_TAG]: items.length };
  for (let i = 0; i < items.length; i++) out[String(i)] = encodeAt(items[i], depthLeft);
  return out;
}

function encodeObject(object: Record<string, unknown>, depthLeft: number): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object)) {
    const stored = escapeKey(key);
    const value = encodeAt(object[key], depthLeft);
    // `__proto__` must become an own data key, never the prototype.
    if (stored === '__proto__') Object.defineProperty(out, stored, { value, enumerable: true, writable: true, configurable: true });
    else out[stored] = value;
  }
  return out;
}

/**
 * The JSON text of a stored value: `JSON.parse(decodeJsonText(encodeJson(v)))` deep-equals `v`.
 * @throws StateflowError `STORE_CORRUPT` when `stored` is not a form {@link encodeJson} writes.
 */
export function decodeJsonText(stored: JsonValue): string {
  const parts: string[] = [];
  writeText(stored, parts);
  return parts.join('');
}

function writeText(stored: JsonValue, out: string[]): void {
  if (stored === null) throw corrupt('a stored value holds a null');
  if (Array.isArray(stored)) {
    out.push('[');
    stored.forEach((item, i) => {
      if (i > 0) out.push(',');
      writeText(item, out);
    });
    out.push(']');
    return;
  }
  if (!isJsonObject(stored)) {
    out.push(JSON.stringify(stored));
    return;
  }
  if (hasOwn(stored, NULL_TAG)) {
    expectOnly(stored, NULL_TAG);
    out.push('null');
    return;
  }
  if (hasOwn(stored, STRING_TAG)) {
    expectOnly(stored, STRING_TAG);
    const text = stored[STRING_TAG];
    if (typeof text !== 'string') throw corrupt('$str holds no string');
    out.push(text);
    return;
  }
  if (hasOwn(stored, LENGTH_TAG)) {
    writeArray(stored, out);
    return;
  }
  out.push('{');
  let first = true;
  for (const key of Object.keys(stored)) {
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(unescapeKey(key)), ':');
    writeText(stored[key] as JsonValue, out);
  }
  out.push('}');
}

function writeArray(stored: JsonObject, out: string[]): void {
  const length = stored[LENGTH_TAG];
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) throw corrupt('$len is not a length');
  out.push('[');
  if (hasOwn(stored, PAGES_TAG)) writePages(stored, length, out);
  else writeFlat(stored, length, out);
  out.push(']');
}

/** The items of a flat array form (every length: threads stored before pages have long ones too). */
function writeFlat(stored: JsonObject, length: number, out: string[]): void {
  if (Object.keys(stored).length !== length + 1) throw corrupt(`an array of $len ${length} has ${Object.keys(stored).length - 1} items`);
  for (let i = 0; i < length; i++) {
    const key = String(i);
    if (!hasOwn(stored, key)) throw corrupt(`an array of $len ${length} lacks item ${i}`);
    if (i > 0) out.push(',');
    writeText(stored[key] as JsonValue, out);
  }
}

function writePages(stored: JsonObject, length: number, out: string[]): void {
  const pages = stored[PAGES_TAG];
  if (length <= PAGE_SIZE || Object.keys(stored).length !== 2 || !isJsonObject(pages)) throw corrupt(`an array of $len ${length} is not in pages`);
  let blocks = 0;
  for (let start = 0; start < length; start += blockSize(start)) {
    writeBlock(pages[String(start)], start, blockSize(start), length, out);
    blocks++;
  }
  if (Object.keys(pages).length !== blocks) throw corrupt(`the pages of an array of $len ${length} hold other keys`);
}

function writeBlock(stored: JsonValue | undefined, start: number, size: number, length: number, out: string[]): void {
  if (!isJsonObject(stored)) throw corrupt(`an array of $len ${length} lacks its page at ${start}`);
  const step = size / PAGE_SIZE;
  const end = Math.min(start + size, length);
  if (Object.keys(stored).length !== Math.ceil((end - start) / step)) throw corrupt(`the page at ${start} of an array of $len ${length} holds other keys`);
  for (let at = start; at < end; at += step) {
    const key = String(at);
    if (step > 1) {
      writeBlock(stored[key], at, step, length, out);
      continue;
    }
    if (!hasOwn(stored, key)) throw corrupt(`an array of $len ${length} lacks item ${at}`);
    if (at > 0) out.push(',');
    writeText(stored[key] as JsonValue, out);
  }
}

function expectOnly(stored: JsonObject, tag: string): void {
  if (Object.keys(stored).length !== 1) throw corrupt(`${tag} is not alone in its object`);
}

/** `STORE_CORRUPT` `{ detail }` for a stored LangGraph value that is not in the stored form. */
export function corrupt(detail: string): StateflowError<'STORE_CORRUPT'> {
  return new StateflowError('STORE_CORRUPT', `A LangGraph value in the store is not in the stored form: ${detail}`, { detail });
}
