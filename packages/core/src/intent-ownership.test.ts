import { describe, expect, it } from 'vitest';
import { applyWithIntentOwnership } from './intent-ownership.js';
import { isStateflowError } from './errors.js';
import type { JsonObject } from './json.js';

const base: JsonObject = {
  intents: {
    release: { goal: 'ship 1.0', owns: [{ $ref: 'cwd.lazy.plan' }, { $ref: 'cwd.tactics.draft' }] },
    other: 'keep going',
  },
  strategy: { rule: 'small steps' },
  tactics: { draft: 'v1', next: 'review' },
  lazy: { plan: { steps: ['a', 'b'] }, notes: ['x'] },
};

describe('intent ownership (seed "Intent ownership")', () => {
  it('rule: deleting an intent clears the existing strategy/tactics/lazy keys it references with a structured $ref', () => {
    const { after, cascaded } = applyWithIntentOwnership('cwd', base, { intents: { release: null } });
    expect(after).toEqual({
      intents: { other: 'keep going' },
      strategy: { rule: 'small steps' },
      tactics: { next: 'review' },
      lazy: { notes: ['x'] },
    });
    expect(cascaded).toEqual([['lazy', 'plan'], ['tactics', 'draft']]);
  });

  it('rule: a textual $cwd.lazy.plan mention never owns', () => {
    const state: JsonObject = { intents: { a: 'uses $cwd.lazy.plan' }, lazy: { plan: 1 } };
    const { after, cascaded } = applyWithIntentOwnership('cwd', state, { intents: { a: null } });
    expect(after).toEqual({ intents: {}, lazy: { plan: 1 } });
    expect(cascaded).toEqual([]);
  });

  it('rule: intents are applied first, independent of the patch key order', () => {
    const patch: JsonObject = { lazy: { plan: { fresh: true } }, intents: { release: null } };
    const { after, cascaded } = applyWithIntentOwnership('cwd', base, patch);
    // the cleared target is recreated by the later authored write, without old fields
    expect(after.lazy).toEqual({ plan: { fresh: true }, notes: ['x'] });
    expect(cascaded).toEqual([['lazy', 'plan'], ['tactics', 'draft']]);
  });

  it('rule: supersession works in one patch (replacement intent references the same target)', () => {
    const { after, cascaded } = applyWithIntentOwnership('cwd', base, {
      intents: { release: null, release2: { owns: { $ref: 'cwd.lazy.plan' } } },
    });
    expect(after.lazy).toEqual(base.lazy);
    expect(cascaded).toEqual([['tactics', 'draft']]);
  });

  it('rule: a remaining intent referencing an ancestor or a descendant protects the target', () => {
    const state: JsonObject = {
      intents: { a: { $ref: 'cwd.lazy.plans.x' }, b: { $ref: 'cwd.lazy.plans' }, c: { $ref: 'cwd.tactics.t.deep' } },
      lazy: { plans: { x: 1 } },
      tactics: { t: { deep: 1 } },
    };
    const ancestor = applyWithIntentOwnership('cwd', state, { intents: { a: null } });
    expect(ancestor.cascaded).toEqual([]);
    const descendant = applyWithIntentOwnership('cwd', { ...state, intents: { a: { $ref: 'cwd.tactics.t' }, c: { $ref: 'cwd.tactics.t.deep' } } }, {
      intents: { a: null },
    });
    expect(descendant.cascaded).toEqual([]);
    expect(descendant.after.tactics).toEqual({ t: { deep: 1 } });
  });

  it('rule: rewriting survivors in the deleting patch creates fresh knowledge (strategy is owned too)', () => {
    const state: JsonObject = { intents: { i: { $ref: 'cwd.strategy.s' } }, strategy: { s: { old: 1, keep: 2 } } };
    const { after, cascaded } = applyWithIntentOwnership('cwd', state, { intents: { i: null }, strategy: { s: { keep: 2 } } });
    expect(after.strategy).toEqual({ s: { keep: 2 } });
    expect(cascaded).toEqual([['strategy', 's']]);
  });

  it('rule: editing an intent to drop a reference does not delete the target', () => {
    const { after, cascaded } = applyWithIntentOwnership('cwd', base, { intents: { release: { owns: null } } });
    expect(after.lazy).toEqual(base.lazy);
    expect(after.tactics).toEqual(base.tactics);
    expect(cascaded).toEqual([]);
  });

  it('skip: other scopes, plane roots, array elements, artifacts/response/intents targets, unscoped/effective/historical refs, missing targets, keys outside the grammar', () => {
    const state: JsonObject = {
      intents: {
        gone: [
          { $ref: 'session.lazy.plan' },
          { $ref: 'cwd.lazy' },
          { $ref: 'cwd.lazy.list[0]' },
          { $ref: 'cwd.lazy.list[0].x' },
          { $ref: 'cwd.artifacts.a' },
          { $ref: 'cwd.response.r' },
          { $ref: 'cwd.intents.keep' },
          { $ref: 'lazy.plan' },
          { $ref: 'effective.lazy.plan' },
          { $ref: 'cwd[1].lazy.plan' },
          { $ref: 'cwd.lazy.missing' },
          { $ref: 'cwd.lazy.has space' },
          { $ref: 'cwd.lazy.a.b' },
        ],
        keep: 'stays',
      },
      lazy: { plan: 1, list: [{ x: 1 }], 'has space': 1 },
      artifacts: { a: 1 },
      response: { r: 'answer' },
    };
    const { after, cascaded } = applyWithIntentOwnership('cwd', state, { intents: { gone: null } });
    expect(cascaded).toEqual([]);
    expect(after).toEqual({ ...state, intents: { keep: 'stays' } });
  });

  it('deleting the whole intents plane deletes every entry (all their targets cascade)', () => {
    const { after, cascaded } = applyWithIntentOwnership('cwd', base, { intents: null });
    expect(after.intents).toBeUndefined();
    expect(cascaded).toEqual([['lazy', 'plan'], ['tactics', 'draft']]);
  });

  it('cascade order is sorted by key steps; an ancestor clears before its descendants (which are then missing)', () => {
    const state: JsonObject = {
      intents: { z: [{ $ref: 'cwd.tactics.b' }, { $ref: 'cwd.lazy.plans.x' }, { $ref: 'cwd.lazy.plans' }, { $ref: 'cwd.lazy.plans' }] },
      tactics: { b: 1 },
      lazy: { plans: { x: 1 } },
    };
    const { cascaded } = applyWithIntentOwnership('cwd', state, { intents: { z: null } });
    expect(cascaded).toEqual([['lazy', 'plans'], ['tactics', 'b']]);
  });

  it('nested lazy deletions are reported even when the top-level lazy keys are unchanged', () => {
    const state: JsonObject = { intents: { i: { $ref: 'cwd.lazy.plans.x' } }, lazy: { plans: { x: 1, y: 2 } } };
    const { after, cascaded } = applyWithIntentOwnership('cwd', state, { intents: { i: null } });
    expect(after.lazy).toEqual({ plans: { y: 2 } });
    expect(cascaded).toEqual([['lazy', 'plans', 'x']]);
  });

  it('a patch without intents applies as an ordinary patch; an invalid patch throws and returns nothing', () => {
    expect(applyWithIntentOwnership('cwd', base, { tactics: { next: 'ship' } }).after.tactics).toEqual({ draft: 'v1', next: 'ship' });
    let caught: unknown;
    try {
      applyWithIntentOwnership('cwd', base, { intents: { release: null }, lazy: { notes: { '[5]': 'y' } } });
    } catch (err) {
      caught = err;
    }
    expect(isStateflowError(caught, 'PATCH_INVALID')).toBe(true);
    expect(base.lazy).toEqual({ plan: { steps: ['a', 'b'] }, notes: ['x'] });
  });

  it('keys such as __proto__ are ordinary data targets', () => {
    const state = JSON.parse('{"intents":{"i":{"$ref":"cwd.lazy.__proto__"}},"lazy":{"__proto__":1,"k":2}}') as JsonObject;
    const { after, cascaded } = applyWithIntentOwnership('cwd', state, { intents: { i: null } });
    expect(cascaded).toEqual([['lazy', '__proto__']]);
    expect(Object.keys(after.lazy as object)).toEqual(['k']);
  });
});
