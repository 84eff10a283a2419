/**
 * Schemas of JSON values whose shape is the caller's (states, patches, metadata). JSON Schema
 * says no more about them than "an object" or "any value", so their static types are declared
 * here, once, as core's JSON types (TypeBox's `Unsafe`: a schema with a declared type).
 */
import { Type } from '@sinclair/typebox';
import type { SchemaOptions, TUnsafe } from '@sinclair/typebox';
import type { JsonObject, JsonValue } from '@stateflow/core';

/** A JSON object of the caller's shape (a state, a net patch, metadata): `{ "type": "object" }`. */
export function jsonObject(options: SchemaOptions = {}): TUnsafe<JsonObject> {
  return Type.Unsafe<JsonObject>({ type: 'object', ...options });
}

/** Any JSON value: the empty schema, with its description. */
export function jsonValue(options: SchemaOptions = {}): TUnsafe<JsonValue> {
  return Type.Unsafe<JsonValue>({ ...options });
}

/** Any JSON value or `null` (an absent side of a merge conflict): the empty schema, with its description. */
export function jsonValueOrNull(options: SchemaOptions = {}): TUnsafe<JsonValue | null> {
  return Type.Unsafe<JsonValue | null>({ ...options });
}

/**
 * One of `values`, sent as text (a query parameter): `{ "type": "string", "enum": values }`.
 * Query strings are text, so the schema says so before it lists the values.
 */
export function stringEnum<const V extends readonly string[]>(values: V, options: SchemaOptions = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** One of `values`: `{ "enum": values }`. */
export function enumOf<const V extends readonly (string | number)[]>(values: V, options: SchemaOptions = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ enum: [...values], ...options });
}
