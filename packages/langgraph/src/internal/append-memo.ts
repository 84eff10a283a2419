/**
 * What a growing channel cost to store, once: the JSON text each channel of a namespace was last
 * stored from, with its stored form as the state holds it. LangGraph hands a saver the whole
 * value of a channel on every put — the whole message list — and the serializer writes it whole;
 * when the new text is the last one with items appended to its top-level array (a message list
 * that grew), only the new items are parsed and mapped, and the rest of the stored form is the
 * state's own (shared), so the net patch is found without comparing the old items again.
 *
 * A memo of a pure function of the text: the result is equal, as JSON, to mapping the whole text
 * (`encodeAppended`); it never stands in for a read of the store.
 */
import { isJsonObject } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import { encodeAppended, encodeJson } from './json-mapping.js';

/** Channels of one namespace remembered (the rest are mapped whole). */
const MAX_CHANNELS = 64;

/** The stored forms of one namespace's channels, by escaped channel key. */
export class AppendMemo {
  readonly #last = new Map<string, { text: string; value: JsonValue }>();

  /**
   * The stored form of `text` (JSON text the serializer wrote for channel `key`), as
   * `encodeJson(JSON.parse(text), maxDepth)`; `texts` records it for {@link remember}.
   * @throws SyntaxError, TooDeepError as `JSON.parse` and `encodeJson` do.
   */
  map(key: string, text: string, maxDepth: number, texts: Map<string, string>): JsonValue {
    texts.set(key, text);
    const last = this.#last.get(key);
    const appended = last === undefined ? undefined : appendedItems(last.text, text);
    const mapped = appended === undefined || last === undefined ? undefined : encodeAppended(last.value, appended, maxDepth);
    return mapped ?? encodeJson(JSON.parse(text) as unknown, maxDepth);
  }

  /**
   * Remember `texts` (channel key → text, as {@link map} recorded them for one state) with the
   * stored forms `channels` — that state's `channels`, as the store holds it — has for them.
   */
  remember(texts: Map<string, string>, channels: JsonValue | undefined): void {
    for (const [key, text] of texts) {
      const stored = isJsonObject(channels) ? channels[key] : undefined;
      this.#last.delete(key);
      if (isJsonObject(stored) && stored['value'] !== undefined && this.#last.size < MAX_CHANNELS) this.#last.set(key, { text, value: stored['value'] });
    }
  }
}

/**
 * The items `next` appends to the top-level array `last` is the text of (`[a,b]` → `[a,b,c]`:
 * `[c]`), or `undefined` when `next` is not that. Exact on serializer output without
 * whitespace between items (JSON.stringify's): the parser is in the same state after the shared
 * prefix, so what follows its comma are new top-level items.
 */
function appendedItems(last: string, next: string): unknown[] | undefined {
  const open = last.length - 1;
  if (last.length < 3 || last[0] !== '[' || last[open] !== ']' || next.length <= last.length || next[open] !== ',') return undefined;
  if (!next.startsWith(last.slice(0, open))) return undefined;
  const items = JSON.parse(`[${next.slice(open + 1)}`) as unknown;
  return Array.isArray(items) && items.length > 0 ? items : undefined;
}
