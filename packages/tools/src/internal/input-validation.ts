/**
 * Checks tool inputs against the exported JSON Schemas with ajv (draft 2020-12), translating
 * ajv's errors into one actionable `INPUT_INVALID` at this package's boundary.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { patchStateInputSchema, readStateInputSchema } from '../schemas.js';
import { jsonInput } from '../json-input.js';

// strictRequired is off: the oneOf branches name members declared in `properties` beside them.
const ajv = new Ajv2020({ strict: true, strictRequired: false });
const validators = {
  read_state: ajv.compile(readStateInputSchema),
  patch_state: ajv.compile(patchStateInputSchema),
} satisfies Record<string, ValidateFunction>;

/** Advice for top-level members the seed rejects by name. */
const REJECTED_MEMBERS: Record<string, string> = {
  offset: 'history belongs in the path itself, as in cwd[1].lazy.memory or effective[12].tactics',
  scope: 'ownership belongs in the path itself, as in cwd.lazy.memory or session.tactics',
};

/**
 * Validates `input` for `tool` and returns a frozen JSON copy of it, read once: first that it
 * is JSON data at all ({@link jsonInput}), then against the tool's JSON Schema.
 * @throws StateflowError `INPUT_INVALID` with `{ field, reason }`.
 */
export function checkToolInput(tool: 'read_state' | 'patch_state', input: unknown): JsonObject {
  if (!isJsonObject(input)) {
    throw new StateflowError('INPUT_INVALID', `${tool} input must be a JSON object.`, { reason: 'type' });
  }
  const request = jsonInput(tool, input) as JsonObject;
  if (tool === 'read_state') {
    for (const [member, advice] of Object.entries(REJECTED_MEMBERS)) {
      if (Object.prototype.hasOwnProperty.call(request, member)) {
        throw new StateflowError('INPUT_INVALID', `read_state does not accept a top-level "${member}": ${advice}.`, {
          field: member,
          reason: 'rejected',
        });
      }
    }
  }
  const validate = validators[tool];
  if (!validate(request)) throw inputError(tool, validate.errors ?? []);
  return request;
}

function inputError(tool: string, errors: ErrorObject[]): StateflowError<'INPUT_INVALID'> {
  const error = errors[0];
  if (error === undefined) return new StateflowError('INPUT_INVALID', `${tool} input is invalid.`, {});
  const field = error.instancePath === '' ? undefined : error.instancePath.slice(1).replaceAll('/', '.');
  let message: string;
  const propertyName = (error as ErrorObject & { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    message = `${tool} "patch" keys must be scopes (global, cwd, session) or, with one selected owner, planes (intents, strategy, tactics, artifacts, response, lazy); got "${propertyName}"`;
    return new StateflowError('INPUT_INVALID', `${message}.`, { field: `patch.${propertyName}`, reason: 'propertyNames' });
  }
  switch (error.keyword) {
    case 'additionalProperties':
      message = `${tool} does not accept "${String(error.params.additionalProperty)}"`;
      return new StateflowError('INPUT_INVALID', `${message}; ${allowed(tool)}.`, {
        field: String(error.params.additionalProperty),
        reason: 'unknown-field',
      });
    case 'oneOf':
    case 'required':
      if (error.keyword === 'required' && tool === 'patch_state') {
        message = `${tool} needs "${String(error.params.missingProperty)}"`;
        break;
      }
      message = `${tool} takes exactly one of "path" (one path) or "paths" (a list of paths)`;
      break;
    case 'enum':
      message = `${field ?? tool} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    default:
      message = `${field ?? tool} ${error.message ?? 'is invalid'}`;
  }
  return new StateflowError('INPUT_INVALID', `${message}.`, { ...(field === undefined ? {} : { field }), reason: error.keyword });
}

function allowed(tool: string): string {
  return tool === 'read_state' ? 'allowed: path or paths, projection and shape' : 'allowed: patch';
}
