/**
 * Upcast properties (README "Shapes"): for generated object schemas v(k), states valid under
 * them, and generated operations each with the schema v(k+1) it implies, the upcast of a state
 * valid under v(k) is valid under v(k+1) — checked with the ajv (2020-12, strict) the store
 * validates with.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { upcast } from '@stateflow/core';
import type { JsonObject, JsonValue, UpcastOperation } from '@stateflow/core';
import { fcParams } from '@stateflow/test-kit';
import { compiled } from './internal/shape-declarations.js';

type Kind = 'string' | 'integer' | 'strings' | 'records';
interface Prop {
  kind: Kind;
  required: boolean;
}
/** A generated object schema: its properties by name (every schema is closed: additionalProperties false). */
type Model = Map<string, Prop>;

// `constructor` caught ajv reading inherited members (fixed by its ownProperties option); not
// `__proto__`: ajv's additionalProperties does not see it as declared (README "Shapes").
const NAMES = ['a', 'b', 'c', 'd', 'e', 'constructor', 'x y', 'a/b'];
const SCHEMA_OF: Record<Kind, JsonObject> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  strings: { type: 'array', items: { type: 'string' } },
  records: { type: 'array', items: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'], additionalProperties: false } },
};

function schemaOf(model: Model, wrapped: Map<string, JsonObject> = new Map()): JsonObject {
  const properties: JsonObject = {};
  for (const [name, prop] of model) Object.defineProperty(properties, name, { value: wrapped.get(name) ?? SCHEMA_OF[prop.kind], enumerable: true });
  return { type: 'object', properties, required: [...model].filter(([, p]) => p.required).map(([n]) => n), additionalProperties: false };
}

const modelArb: fc.Arbitrary<Model> = fc
  .uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), kind: fc.constantFrom<Kind>('string', 'integer', 'strings', 'records'), required: fc.boolean() }), { selector: (p) => p.name, minLength: 1, maxLength: 5 })
  .map((props) => new Map(props.map((p) => [p.name, { kind: p.kind, required: p.required }])));

const valueArb: Record<Kind, fc.Arbitrary<JsonValue>> = {
  string: fc.string({ maxLength: 4 }),
  integer: fc.integer({ min: -5, max: 5 }),
  strings: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  records: fc.array(fc.record({ v: fc.string({ maxLength: 3 }) }), { maxLength: 3 }),
};

/** A state valid under `model`: every required member, each optional one present or not. */
function stateArb(model: Model): fc.Arbitrary<JsonObject> {
  const members = [...model].map(([name, prop]) => fc.tuple(fc.constant(name), prop.required ? fc.constant(true) : fc.boolean(), valueArb[prop.kind]));
  return fc.tuple(...members).map((entries) => {
    const state: JsonObject = {};
    for (const [name, present, value] of entries) if (present) Object.defineProperty(state, name, { value, enumerable: true });
    return state;
  });
}

const pointer = (name: string): string => `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/**
 * One operation applicable to `model`, with the schema of the next version it implies (a
 * schema a careful author would write for it).
 */
function stepArb(model: Model): fc.Arbitrary<{ ops: UpcastOperation[]; next: JsonObject }> {
  const names = [...model.keys()];
  const free = NAMES.filter((n) => !model.has(n));
  const choices: fc.Arbitrary<{ ops: UpcastOperation[]; next: JsonObject }>[] = [];
  const renamed = (from: string, to: string, keep: boolean): Model => {
    const next = new Map(model);
    if (!keep) next.delete(from);
    next.set(to, model.get(from) as Prop);
    return next;
  };
  if (free.length > 0) {
    choices.push(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...free)).map(([from, to]) => ({ ops: [{ op: 'move', from: pointer(from), path: pointer(to) }], next: schemaOf(renamed(from, to, false)) })));
    choices.push(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...free)).map(([from, to]) => ({ ops: [{ op: 'copy', from: pointer(from), path: pointer(to) }], next: schemaOf(renamed(from, to, true)) })));
    choices.push(fc.tuple(fc.constantFrom(...free), valueArb.string).map(([to, value]) => ({ ops: [{ op: 'default', path: pointer(to), value }], next: schemaOf(new Map(model).set(to, { kind: 'string', required: true })) })));
  }
  choices.push(fc.constantFrom(...names).map((name) => {
    const next = new Map(model);
    next.delete(name);
    return { ops: [{ op: 'remove', path: pointer(name) }], next: schemaOf(next) };
  }));
  choices.push(fc.tuple(fc.constantFrom(...names), fc.option(fc.constantFrom('k', 'value'), { nil: undefined })).map(([name, key]) => {
    const inner = SCHEMA_OF[(model.get(name) as Prop).kind];
    const wrapped = key === undefined ? { type: 'array', items: inner, minItems: 1, maxItems: 1 } : { type: 'object', properties: { [key]: inner }, required: [key], additionalProperties: false };
    return { ops: [key === undefined ? { op: 'wrap', path: pointer(name) } : { op: 'wrap', path: pointer(name), key }], next: schemaOf(model, new Map([[name, wrapped]])) };
  }));
  const lists = names.filter((n) => (model.get(n) as Prop).kind === 'records');
  if (lists.length > 0) {
    choices.push(fc.constantFrom(...lists).map((name) => {
      const item = { type: 'object', properties: { w: { type: 'string' }, n: { type: 'integer' } }, required: ['w', 'n'], additionalProperties: false };
      const ops: UpcastOperation[] = [{ op: 'each', path: pointer(name), ops: [{ op: 'move', from: '/v', path: '/w' }, { op: 'default', path: '/n', value: 0 }] }];
      return { ops, next: schemaOf(model, new Map([[name, { type: 'array', items: item }]])) };
    }));
  }
  return fc.oneof(...choices);
}

describe('upcast operations keep validity', () => {
  it('an upcast of a state valid under v(k) is valid under v(k+1), for generated schemas, states and steps', () => {
    const caseArb = modelArb.chain((model) => fc.tuple(fc.constant(model), stateArb(model), stepArb(model)));
    let checked = 0;
    fc.assert(
      fc.property(caseArb, ([model, state, step]) => {
        const before = compiled('prop', 1, schemaOf(model));
        expect(before(state), JSON.stringify(before.errors)).toBe(true);
        const result = upcast(state, step.ops);
        expect(result.ok).toBe(true);
        const after = compiled('prop', 2, step.next);
        const value = (result as { value: JsonValue }).value;
        expect(after(value), `${JSON.stringify(step.ops)} on ${JSON.stringify(state)}: ${JSON.stringify(after.errors)}`).toBe(true);
        // The input is never changed.
        expect(before(state)).toBe(true);
        checked++;
      }),
      fcParams(),
    );
    expect(checked).toBeGreaterThan(0);
  });

  it('the property can fail: a rename whose next schema still requires the old name is caught', () => {
    const model: Model = new Map([['a', { kind: 'string', required: true }]]);
    const stale = compiled('prop', 2, schemaOf(new Map([['a', { kind: 'string', required: true }], ['b', { kind: 'string', required: true }]])));
    const result = upcast({ a: 'x' }, [{ op: 'move', from: '/a', path: '/b' }]);
    expect(result.ok && stale(result.value)).toBe(false);
    expect(compiled('prop', 1, schemaOf(model))({ a: 'x' })).toBe(true);
  });
});
