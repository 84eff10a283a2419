/**
 * Compiles the JSON Schemas a ladder author writes (`slateWrite.match`, `if.jsonMatches`,
 * `retrieve.requestMatch`) with ajv in strict mode (DESIGN.md "Decisions: Schemas").
 *
 * Strict here means: an unknown keyword or an unknown format is a config error; formats are
 * the ajv-formats set; `required` may name properties the schema does not describe (the seeds'
 * verify_and_store example does) and applicator keywords need no `type`.
 *
 * Author patterns (`pattern`, `patternProperties`) run on RE2 (`re2js`, pure JavaScript), whose
 * matching is linear in the input: these schemas check model output, which a user steers, and a
 * backtracking engine lets `^(a+)+$` take time doubling per character. A pattern RE2 cannot run
 * (lookahead, lookbehind, backreferences) is a config error at load time.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { selfReferenceWithoutDescent } from './schema-cycles.js';

// ajv-formats is CommonJS: NodeNext types the default import as its module object, whose
// `default` is the plugin (the package sets `exports.default` to it as well).
const addFormats = addFormatsModule.default;

/** A compiled author schema: `true` when the value conforms. */
export type JsonCheck = (value: JsonValue) => boolean;

/**
 * ajv's `code.regExp` engine on RE2: JSON Schema patterns are unanchored searches (ECMA-262
 * `test`), which is RE2's `find`.
 * @throws Error naming the pattern and the engine's limits when RE2 cannot compile it (ajv then
 *   reports the schema as invalid).
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot run on the linear-time regular expression engine (RE2: no lookahead, lookbehind or backreferences): ${reason}`,
        { cause: err },
      );
    }
    // ajv keys its pattern cache by `toString()`: it must differ per pattern.
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearRegExp' },
);

/** One ajv instance per ladder, so `$id`s of one config cannot leak into another. */
export function createSchemaCompiler(): (schema: object) => JsonCheck {
  const ajv = new Ajv({
    code: { regExp: linearRegExp },
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
    if ((validate as { $async?: unknown }).$async === true) {
      throw new AsyncSchemaError('is asynchronous ($async: true), but ladder schemas are checked synchronously; remove $async');
    }
    return (value) => validate(value) === true;
  };
}

/**
 * Compile `schema`, returning the check or what is wrong with it, phrased to follow the name of
 * the schema (`… is not a valid JSON Schema: strict mode: unknown keyword: "minimun"`). Refused
 * besides what ajv refuses: a schema that refers to itself without descending into the value
 * (checking would never end) and an asynchronous one (`$async: true`: its check returns a
 * promise, so it would never match).
 */
export function tryCompile(compile: (schema: object) => JsonCheck, schema: object): { check: JsonCheck } | { problem: string } {
  const cycle = selfReferenceWithoutDescent(schema as JsonObject);
  if (cycle !== null) {
    return { problem: `refers to itself through "$ref" without descending into the value (at "${cycle}"), so checking any value would never end` };
  }
  try {
    return { check: compile(schema) };
  } catch (err) {
    if (err instanceof AsyncSchemaError) return { problem: err.message };
    return { problem: `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Thrown by the compiler for an asynchronous schema. */
class AsyncSchemaError extends Error {}
