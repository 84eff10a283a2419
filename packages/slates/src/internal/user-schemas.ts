/**
 * Compiles the JSON Schemas a ladder author writes (`slateWrite.match`, `if.jsonMatches`,
 * `retrieve.requestMatch`) with ajv in strict mode (DESIGN.md "Decisions: Schemas").
 *
 * Strict here means: an unknown keyword or an unknown format is a config error; formats are
 * the ajv-formats set; `required` may name properties the schema does not describe (the seeds'
 * verify_and_store example does) and applicator keywords need no `type`.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonValue } from '@stateflow/core';

// ajv-formats is CommonJS with `exports.default`; NodeNext sees the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** A compiled author schema: `true` when the value conforms. */
export type JsonCheck = (value: JsonValue) => boolean;

/** One ajv instance per ladder, so `$id`s of one config cannot leak into another. */
export function createSchemaCompiler(): (schema: object) => JsonCheck {
  const ajv = new Ajv({
    strict: true,
    strictRequired: false,
    strictTypes: false,
    strictTuples: false,
    allErrors: false,
    validateFormats: true,
  });
  addFormats(ajv);
  return (schema) => {
    const validate: ValidateFunction = ajv.compile(schema);
    return (value) => validate(value) === true;
  };
}

/**
 * Compile `schema`, returning the check or the reason it is not a valid strict schema
 * (ajv's message, e.g. `strict mode: unknown keyword: "minimun"`).
 */
export function tryCompile(
  compile: (schema: object) => JsonCheck,
  schema: object,
): { check: JsonCheck } | { error: string } {
  try {
    return { check: compile(schema) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
