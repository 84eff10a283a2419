/**
 * Validation of HTTP requests against the route schemas (`@stateflow/http-contract`), with ajv@8 configured
 * by part, and the one translation of ajv's errors into an `INPUT_INVALID` message.
 *
 * Bodies are JSON: they are validated exactly as sent — no type coercion (fastify's default
 * `coerceTypes` would turn `"model": 5` into `"5"` and rewrite values inside `anyOf`
 * branches), no removal of unknown members. Path parameters and query strings are text, so
 * there numbers are coerced (`?at=2` is the integer 2) — from decimal only: ajv's coercion
 * (`+value`) would also read `0x10`, `1e3`, ` 7 ` or `0b1`, so a number member spelled any
 * other way than {@link DECIMAL} is refused before coercion.
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
  if (httpPart === 'body') return bodyAjv.compile(schema);
  const validate = textAjv.compile(schema);
  const numeric = numericMembers(schema);
  if (numeric.length === 0) return validate;
  const checked = ((data: unknown) => {
    const bad = misspelledNumber(data, numeric);
    if (bad === null) {
      const valid = validate(data);
      checked.errors = validate.errors;
      return valid;
    }
    checked.errors = [{ keyword: 'type', instancePath: `/${bad}`, schemaPath: `#/properties/${bad}/type`, params: { type: 'integer' }, message: 'must be a decimal number' }];
    return false;
  }) as ValidateFunction;
  return checked;
}

/** How a number is spelled in a query string or path: decimal digits, an optional sign and fraction. */
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** The members of an object schema that are numbers (alone or as a branch of `anyOf`), and not also strings. */
function numericMembers(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const types = (member: unknown): string[] => {
    const m = member as { type?: unknown; anyOf?: unknown[]; items?: unknown };
    if (Array.isArray(m.anyOf)) return m.anyOf.flatMap(types);
    if (m.type === 'array') return types(m.items ?? {});
    return typeof m.type === 'string' ? [m.type] : Array.isArray(m.type) ? (m.type as string[]) : [];
  };
  return Object.entries(properties)
    .filter(([, member]) => {
      const t = types(member);
      return (t.includes('integer') || t.includes('number')) && !t.includes('string');
    })
    .map(([name]) => name);
}

/** The first of `members` in `data` whose text (or one of whose repeated values) is not {@link DECIMAL}, or `null`. */
function misspelledNumber(data: unknown, members: readonly string[]): string | null {
  if (data === null || typeof data !== 'object') return null;
  for (const name of members) {
    const value = (data as Record<string, unknown>)[name];
    const texts = Array.isArray(value) ? value : [value];
    if (texts.some((text) => typeof text === 'string' && !DECIMAL.test(text))) return name;
  }
  return null;
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
