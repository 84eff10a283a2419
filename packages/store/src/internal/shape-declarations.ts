/**
 * The shape declarations (README "Shapes"): the state of `stateflow:shapes` is one object, a
 * shape name → `{ streams, versions }` — `streams` a stream-family pattern (fixed at version 1),
 * `versions` the list of versions, version k at index k − 1, each `{ schema, upcast? }`: a JSON
 * Schema (2020-12, compiled by ajv in strict mode) and the operations (core `upcast`) that carry
 * a state of version k − 1 to version k (none: the state is kept as it is). Versions are only
 * ever appended. This module owns those rules (applied when the stream is written and by the
 * audit), reading the declarations out of a state, and the compiled validators.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { StateflowError, isJsonObject, isTagName, jsonEqual, upcastOperationsProblem } from '@stateflow/core';
import type { JsonObject, JsonValue, UpcastOperation } from '@stateflow/core';
import { parseStreamFamily } from '../stream-family.js';
import type { StreamFamily } from '../stream-family.js';

/** One version of a shape, as declared. */
export interface ShapeVersion {
  /** 1, 2, 3, … */
  version: number;
  schema: JsonObject;
  /** The operations from version − 1 (`[]` when none are declared). */
  upcast: readonly UpcastOperation[];
}

/** One declared shape with every version. */
export interface ShapeDeclaration {
  name: string;
  family: StreamFamily;
  versions: readonly ShapeVersion[];
}

/** Why a shape declaration is refused (core `SHAPE_INVALID` details). */
export type ShapeInvalidReason = StateflowError<'SHAPE_INVALID'>['details']['reason'];

const RECORD_KEYS = new Set(['streams', 'versions']);
const VERSION_KEYS = new Set(['schema', 'upcast']);

/** A SHAPE_INVALID error. */
export function shapeInvalid(shape: string, reason: ShapeInvalidReason, message: string): StateflowError<'SHAPE_INVALID'> {
  return new StateflowError('SHAPE_INVALID', `${message}; nothing was written`, { shape, reason });
}

/**
 * Check the whole shapes state `after`, written over `before`: every member well-formed, no
 * version of `before` removed or changed, no pattern changed.
 * @throws SHAPE_INVALID `{ shape, reason }`: `name`, `record`, `streams`, `schema`, `upcast`, `history`
 */
export function checkShapeDeclarations(before: JsonObject, after: JsonObject): void {
  for (const [name, value] of Object.entries(after)) {
    const declared = shapeOf(name, value);
    const old = before[name];
    if (old === undefined || jsonEqual(old, value)) continue;
    const previous = shapeOf(name, old);
    if (previous.family.pattern !== declared.family.pattern) {
      throw shapeInvalid(name, 'streams', `Shape ${name} is declared for ${previous.family.pattern}: its streams cannot change (declare a shape of another name)`);
    }
    const versions = (value as JsonObject).versions as JsonValue[];
    const oldVersions = (old as JsonObject).versions as JsonValue[];
    if (versions.length < oldVersions.length || oldVersions.some((v, i) => !jsonEqual(v, versions[i] as JsonValue))) {
      throw shapeInvalid(name, 'history', `Shape ${name} had ${oldVersions.length} versions: versions are only appended, never removed or changed`);
    }
  }
  for (const name of Object.keys(before)) {
    if (!Object.hasOwn(after, name)) throw shapeInvalid(name, 'history', `Shape ${name} cannot be removed: states recorded under it would read as nothing`);
  }
}

/**
 * The declaration of shape `name` as stored (`value`), its schemas compiled.
 * @throws SHAPE_INVALID `name`, `record`, `streams`, `schema`, `upcast`
 */
export function shapeOf(name: string, value: JsonValue | undefined): ShapeDeclaration {
  if (!isTagName(name)) throw shapeInvalid(name.slice(0, 140), 'name', `Shape name ${JSON.stringify(name.slice(0, 140))} is not a name: shapes match [A-Za-z][A-Za-z0-9_.-]* (at most 128 characters)`);
  const record = (): never => {
    throw shapeInvalid(name, 'record', `Shape ${name} must be { streams, versions: [{ schema, upcast? }, …] } with at least one version`);
  };
  if (!isJsonObject(value) || Object.keys(value).some((key) => !RECORD_KEYS.has(key))) return record();
  const { streams, versions } = value;
  if (typeof streams !== 'string' || !Array.isArray(versions) || versions.length === 0) return record();
  let family: StreamFamily;
  try {
    family = parseStreamFamily(streams);
  } catch (err) {
    throw shapeInvalid(name, 'streams', `Shape ${name}: ${(err as Error).message}`);
  }
  const out: ShapeVersion[] = versions.map((v, i) => {
    if (!isJsonObject(v) || Object.keys(v).some((key) => !VERSION_KEYS.has(key)) || !isJsonObject(v.schema)) return record();
    const problem = v.upcast === undefined ? null : upcastOperationsProblem(v.upcast, `version ${i + 1}'s upcast`);
    if (problem !== null) throw shapeInvalid(name, 'upcast', `Shape ${name}: ${problem}`);
    compiled(name, i + 1, v.schema);
    return { version: i + 1, schema: v.schema, upcast: (v.upcast ?? []) as unknown as UpcastOperation[] };
  });
  return { name, family, versions: out };
}

const parsed = new WeakMap<JsonObject, readonly ShapeDeclaration[]>();

/** Every shape of a shapes state (cached per state object; members that do not verify are left out: the audit reports them). */
export function shapesOf(state: JsonObject): readonly ShapeDeclaration[] {
  let shapes = parsed.get(state);
  if (shapes === undefined) {
    shapes = [];
    for (const [name, value] of Object.entries(state)) {
      try {
        (shapes as ShapeDeclaration[]).push(shapeOf(name, value));
      } catch {
        // see above
      }
    }
    parsed.set(state, shapes);
  }
  return shapes;
}

const ajv = new Ajv2020({ strict: true, allErrors: false, validateFormats: false, addUsedSchema: false, ownProperties: true });
const validators = new WeakMap<JsonObject, ValidateFunction>();

/**
 * The validator of a schema (cached per schema object: stored states are frozen and shared, so
 * a version's schema keeps its identity from revision to revision).
 * @throws SHAPE_INVALID `schema` when ajv (strict, JSON Schema 2020-12) does not compile it
 */
export function compiled(name: string, version: number, schema: JsonObject): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      throw shapeInvalid(name, 'schema', `Shape ${name} version ${version}: the schema does not compile as JSON Schema 2020-12 (ajv, strict): ${(err as Error).message}`);
    }
    validators.set(schema, validate);
  }
  return validate;
}

/** The first error of a failed validation, as `{ path, rule, schemaPath, message }`. */
export function firstError(validate: ValidateFunction): { path: string; rule: string; schemaPath: string; message: string } {
  const error = (validate.errors?.[0] ?? { instancePath: '', keyword: 'unknown', schemaPath: '#', message: 'is invalid' }) as ErrorObject;
  return { path: error.instancePath, rule: error.keyword, schemaPath: error.schemaPath, message: `${error.instancePath === '' ? 'the state' : error.instancePath} ${error.message ?? 'is invalid'}` };
}
