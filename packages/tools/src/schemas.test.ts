import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkToolInput } from './internal/input-validation.js';
import { patchStateInputSchema, readStateInputSchema } from './schemas.js';

describe('tool input schemas (draft 2020-12)', () => {
  it('compile in ajv strict mode as draft 2020-12 schemas', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false });
    expect(readStateInputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(ajv.validateSchema(readStateInputSchema)).toBe(true);
    expect(ajv.validateSchema(patchStateInputSchema)).toBe(true);
  });

  it('read_state accepts { path } or { paths } with an optional projection', () => {
    expect(checkToolInput('read_state', { path: 'cwd.lazy' })).toEqual({ path: 'cwd.lazy' });
    expect(checkToolInput('read_state', { paths: ['a', 'a'], projection: 'keys' })).toEqual({ paths: ['a', 'a'], projection: 'keys' });
  });

  it.each([
    [{ path: 'cwd', offset: 3 }, 'offset', 'read_state does not accept a top-level "offset": history belongs in the path itself, as in cwd[1].lazy.memory or effective[12].tactics.'],
    [{ path: 'cwd', scope: 'cwd' }, 'scope', 'read_state does not accept a top-level "scope": ownership belongs in the path itself, as in cwd.lazy.memory or session.tactics.'],
    [{ path: 'cwd', limit: 3 }, 'limit', 'read_state does not accept "limit"; allowed: path or paths, projection and shape.'],
  ])('read_state rejects %j naming the field', (input, field, message) => {
    let caught: unknown;
    try {
      checkToolInput('read_state', input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'INPUT_INVALID', details: { field }, message });
  });

  it.each([
    [{}, 'read_state takes exactly one of "path" (one path) or "paths" (a list of paths).'],
    [{ path: 'a', paths: ['b'] }, 'read_state takes exactly one of "path" (one path) or "paths" (a list of paths).'],
    [{ paths: [] }, 'paths must NOT have fewer than 1 items.'],
    [{ path: 'a', projection: 'diff' }, 'projection must be one of "value", "keys", "patch".'],
    [{ path: 3 }, 'path must be string.'],
    [[], 'read_state input must be a JSON object.'],
  ])('read_state rejects %j', (input, message) => {
    expect(() => checkToolInput('read_state', input)).toThrow(message);
  });

  it.each([
    [{}, 'patch_state needs "patch".'],
    [{ patch: {} }, 'patch must NOT have fewer than 1 properties.'],
    [{ patch: { cwd: {} }, scope: 'cwd' }, 'patch_state does not accept "scope"; allowed: patch.'],
    [{ patch: { notes: 1 } }, 'patch_state "patch" keys must be scopes (global, cwd, session) or, with one selected owner, planes (intents, strategy, tactics, artifacts, response, lazy); got "notes".'],
    [{ patch: [1] }, 'patch must be object.'],
  ])('patch_state rejects %j', (input, message) => {
    let caught: unknown;
    try {
      checkToolInput('patch_state', input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'INPUT_INVALID', message });
  });
});
