/**
 * One LangGraph value as it lives in a Stateflow state: the output of LangGraph's serializer
 * (`serde.dumpsTyped` → `[type, bytes]`) in the form README "Value mapping" documents.
 *
 * - `{ type: 'json', value }`: the serializer wrote JSON text; `value` is that JSON mapped by
 *   `json-mapping.ts`, so unchanged parts of a value cost nothing in the next net patch.
 * - `{ type: 'json', text }`: JSON text nested too deeply for a state, kept as the text itself.
 * - `{ type, base64 }`: any other type (`bytes` for a top-level `Uint8Array`, a custom
 *   serializer's types), or `json` output that is not UTF-8 JSON: the bytes exactly.
 *
 * Loading hands the serializer the same JSON text (for `json`) or the same bytes it wrote, so
 * a value comes back as it would from any other saver using that serializer.
 */
import { MAX_PATCH_DEPTH, hasOwn, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { TooDeepError, corrupt, decodeJsonText, encodeJson } from './json-mapping.js';

/**
 * Containers a mapped value may nest: the store's patch depth limit less the deepest place a
 * value sits in a state (`early_writes` → checkpoint → write key → entry → value).
 */
const VALUE_MAX_DEPTH = MAX_PATCH_DEPTH - 8;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/**
 * Maps the serializer's JSON text to its stored form, as `encodeJson(JSON.parse(text), maxDepth)`
 * does (an `AppendMemo` does it for a channel). Throws as they do.
 */
export type MapText = (text: string, maxDepth: number) => JsonValue;

const mapWhole: MapText = (text, maxDepth) => encodeJson(JSON.parse(text) as unknown, maxDepth);

/**
 * Serialize `value` with `serde` and map it to its stored form (a JSON object with `type` and
 * one of `value`, `text`, `base64`); `mapText` maps JSON text (default: the whole text).
 */
export async function storeValue(serde: SerializerProtocol, value: unknown, mapText: MapText = mapWhole): Promise<JsonObject> {
  const [type, bytes] = await serde.dumpsTyped(value);
  if (type === 'json') {
    const text = jsonText(bytes);
    if (text !== null) {
      try {
        return { type, value: mapText(text, VALUE_MAX_DEPTH) };
      } catch (err) {
        if (err instanceof TooDeepError) return { type, text };
        if (!(err instanceof SyntaxError)) throw err;
      }
    }
  }
  return { type, base64: Buffer.from(bytes).toString('base64') };
}

function jsonText(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The value a stored form holds, through `serde.loadsTyped`.
 * @throws StateflowError `STORE_CORRUPT` `{ detail }` when `stored` is not a stored form.
 */
export async function loadValue(serde: SerializerProtocol, stored: JsonValue | undefined): Promise<unknown> {
  if (!isJsonObject(stored) || typeof stored['type'] !== 'string') throw corrupt('a stored value has no type');
  const type = stored['type'];
  if (hasOwn(stored, 'value')) return serde.loadsTyped(type, utf8Encoder.encode(decodeJsonText(stored['value'] as JsonValue)));
  if (typeof stored['text'] === 'string') return serde.loadsTyped(type, utf8Encoder.encode(stored['text']));
  if (typeof stored['base64'] === 'string') return serde.loadsTyped(type, new Uint8Array(Buffer.from(stored['base64'], 'base64')));
  throw corrupt('a stored value has none of value, text, base64');
}
