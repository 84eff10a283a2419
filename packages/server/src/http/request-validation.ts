/**
 * Validation of HTTP requests against the route schemas (`@stateflow/http-contract`), with ajv@8 configured
 * by part, and the one translation of ajv's errors into an `INPUT_INVALID` message.
 *
 * Bodies are JSON: they are validated exactly as sent — no type coercion (fastify's default
 * `coerceTypes` would turn `"model": 5` into `"5"` and rewrite values inside `anyOf`
 * branches), no removal of unknown members. Path parameters and query strings are text, so
 * there numbers are coerced (`?at=2` is the integer 2).
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { StateflowError, elidePath, pointerSegments } from '@stateflow/core';

// verbose: an anyOf error carries its schema, whose `description` says what is accepted.
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false, verbose: true });
const textAjv = new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, verbose: true });

/**
 * fastify's `validatorCompiler`: compiles a route schema for its part (`body` without
 * coercion, `params`/`querystring`/`headers` with number coercion).
 */
export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction {
  return (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
}

/** A request part fastify validates. */
type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/**
 * The `validatorCompiler` of a route whose `parts` its schema documents but its handler checks,
 * with codes and messages of its own (the state API's tool inputs, `/mcp`'s JSON-RPC body and
 * owner selection): those parts pass as sent, the others are compiled as {@link compileValidator}
 * compiles them.
 */
export function validateExcept(...parts: HttpPart[]): (route: { schema: object; httpPart?: string }) => ValidateFunction | (() => boolean) {
  return (route) => (parts.some((part) => part === route.httpPart) ? () => true : compileValidator(route));
}

/**
 * The `INPUT_INVALID` for a failed schema validation of request part `part`: one sentence
 * naming the member (`body.messages[0].content`) and what it must be, with details
 * `{ field, reason }` (`field` dotted from the part, `reason` the failing keyword) and `cause`
 * (fastify's error).
 */
export function validationError(errors: readonly ErrorObject[], part: string, cause?: unknown): StateflowError<'INPUT_INVALID'> {
  // An anyOf failure is reported as itself, not as the failures of each of its branches.
  const error = errors.find((e) => e.keyword === 'anyOf') ?? errors[0];
  const options = { cause };
  if (error === undefined) return new StateflowError('INPUT_INVALID', `The request ${part} is invalid.`, { field: part, reason: 'schema' }, options);
  const field = [part, ...pointerSegments(error.instancePath)].join('.');
  const where = elidePath(displayField(part, error.instancePath));
  return new StateflowError('INPUT_INVALID', `${where} ${problem(error)}.`, { field: elidePath(field), reason: error.keyword }, options);
}

function problem(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'anyOf': {
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
      return typeof description === 'string' ? `must be ${description}` : 'does not match any accepted shape';
    }
    case 'required':
      return `needs the member ${JSON.stringify(params.missingProperty)}`;
    case 'additionalProperties':
      return `does not accept the member ${JSON.stringify(elidePath(String(params.additionalProperty)))}`;
    case 'type':
      return `must be ${article(String(params.type))}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** `body` + `/messages/0/content` → `body.messages[0].content`. */
function displayField(part: string, pointer: string): string {
  let out = part;
  for (const step of pointerSegments(pointer)) out += /^(0|[1-9]\d*)$/.test(step) ? `[${step}]` : `.${step}`;
  return out;
}

function article(type: string): string {
  const names = type.split(',');
  return names.map((name) => (/^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`)).join(' or ');
}
