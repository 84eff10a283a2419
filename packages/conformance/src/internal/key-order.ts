import type { JsonObject } from '@stateflow/core';

/**
 * Key order, as the store README "Key order" states it: the order of a JavaScript object — keys
 * that are array indices (canonical decimals 0 … 2^32 − 2) first, in ascending numeric order,
 * then every other key in the order it was first written (a rewrite keeps its place, a key
 * deleted and written again goes last). Every JSON parser in JavaScript reads documents into
 * that order, so no transport could deliver another one.
 */
export const KEY_ORDER_WRITES: readonly JsonObject[] = [
  { b: 1, '4294967295': 1, '2': 1, a: 1, '10': 1, z: 1 },
  { c: 1, '1': 1, b: 2 },
  { a: null },
  { a: 3, '4294967294': 1 },
];
/** The keys of the state after {@link KEY_ORDER_WRITES}, and after each of them. */
export const KEY_ORDERS: ReadonlyArray<readonly string[]> = [
  ['2', '10', 'b', '4294967295', 'a', 'z'],
  ['1', '2', '10', 'b', '4294967295', 'a', 'z', 'c'],
  ['1', '2', '10', 'b', '4294967295', 'z', 'c'],
  ['1', '2', '10', '4294967294', 'b', '4294967295', 'z', 'c', 'a'],
];
