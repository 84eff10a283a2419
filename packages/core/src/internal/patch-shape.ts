import type { JsonObject, JsonValue } from '../json.js';
import { isJsonObject } from '../json.js';
import { classifyKey } from './index-key.js';
import { patchInvalid } from '../patch-error.js';
import { childPointer } from '../json-pointer.js';

/**
 * The two shapes a patch object can take: an ordinary object patch (`'keys'`, including `{}`)
 * or an index patch whose keys are all `"[N]"` selectors (`'index'`).
 *
 * @throws StateflowError `PATCH_INVALID` `bad-index-syntax` (a non-canonical `[…]` key) or
 *   `mixed-index-and-keys`.
 */
export function patchObjectShape(patch: JsonObject, at: string): 'keys' | 'index' {
  let indexKey: string | undefined;
  let ordinaryKey: string | undefined;
  for (const key of Object.keys(patch)) {
    const kind = classifyKey(key).kind;
    if (kind === 'bad-index') {
      throw patchInvalid(
        `"${key}" is not a valid index selector; use a canonical non-negative decimal such as "[0]" or "[12]"`,
        { reason: 'bad-index-syntax', at: childPointer(at, key), index: key },
      );
    }
    if (kind === 'index') indexKey ??= key;
    else ordinaryKey ??= key;
    if (indexKey !== undefined && ordinaryKey !== undefined) {
      throw patchInvalid(
        `index selector "${indexKey}" and ordinary key "${ordinaryKey}" are mixed in one object; an object patches either an array (only "[N]" keys) or an object (no "[N]" keys)`,
        { reason: 'mixed-index-and-keys', at, index: indexKey },
      );
    }
  }
  return indexKey === undefined ? 'keys' : 'index';
}

/**
 * Checks a value that is written as data (an array, or anything inside one): it may hold no
 * `null` and no `[…]` keys, since inside a written value neither is patch syntax.
 *
 * @throws StateflowError `PATCH_INVALID` `null-in-value` or `index-key-in-value`.
 */
export function assertWritableValue(value: JsonValue, at: string): void {
  if (value === null) {
    throw patchInvalid('null is only a deletion marker for an object key; it cannot be stored inside a value', {
      reason: 'null-in-value',
      at,
    });
  }
  if (Array.isArray(value)) {
    value.forEach((element, i) => assertWritableValue(element, childPointer(at, String(i))));
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (classifyKey(key).kind !== 'key') {
        throw patchInvalid(`"${key}" is reserved index syntax and cannot be stored as a key inside an array element`, {
          reason: 'index-key-in-value',
          at: childPointer(at, key),
          index: key,
        });
      }
      assertWritableValue(value[key] as JsonValue, childPointer(at, key));
    }
  }
}
