/**
 * Seed items of `seeds/stateflow-lazy-state-read-state.md` that the validation-contract,
 * intent-ownership and failure-semantics files do not pin, one test each, named by the seed
 * section it implements — on memory-level and on classic-level in a temp directory.
 */
import { describe, expect, it } from 'vitest';
import { readStateInputSchema } from './schemas.js';
import { createRuntime } from './runtime.js';
import { ALL_OWNERS, backends, dump, runtimePerTest } from '../test-support/stores.js';
import { rejectionOf } from '@stateflow/test-kit';


describe.each(backends)('State Flow seed items ($name)', (backend) => {
  const ctx = runtimePerTest(backend);

  it('SF-1 Projections › patch: an array element changed from 1 to {} is not "No change to the selected path at that boundary: { "patch": {} }"', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: [1, 2], plan: 'p' } } } });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: [{}, 2] } } } });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { plan: null } } } });
    expect(await ctx.rt.readState({ paths: ['cwd[1].lazy.memory[0]', 'cwd[2].lazy.memory[0]'] })).toEqual({ value: [1, {}] });
    // Validation contract: "`patch` … distinguishes no-change from deletion" — and from a change to {}.
    expect(await ctx.rt.readState({ path: 'cwd[2].lazy.memory[0]', projection: 'patch' })).toEqual({ patch: { '': null } });
    expect(await ctx.rt.readState({ path: 'cwd[2].lazy.memory[1]', projection: 'patch' })).toEqual({ patch: {} });
    expect(await ctx.rt.readState({ path: 'cwd[2].lazy.memory', projection: 'patch' })).toEqual({ patch: [{}, 2] });
    expect(await ctx.rt.readState({ path: 'cwd[3].lazy.plan', projection: 'patch' })).toEqual({ patch: null });
    expect(await ctx.rt.readState({ path: 'cwd[3].lazy.memory[0]', projection: 'patch' })).toEqual({ patch: {} });
  });

  it('SF-2 Limits and change authority: "Names must fit the shared path grammar" — {"has space":1,"a.b":2,"план":3} is PATCH_INVALID naming the key and the rule', async () => {
    const before = await dump(ctx.ts.store);
    for (const [key, at] of [
      ['has space', '/cwd/lazy/has space'],
      ['a.b', '/cwd/lazy/a.b'],
      ['план', '/cwd/lazy/план'],
    ] as const) {
      const err = await rejectionOf(ctx.rt.patchState({ patch: { cwd: { lazy: { ok: 0, [key]: 1 } } } }), 'PATCH_INVALID');
      expect(err.details).toMatchObject({ reason: 'unreachable-key', at });
      expect(err.message).toContain(`the key "${key}" cannot be read by any read_state path`);
      expect(err.message).toContain('names must fit the shared path grammar, where keys match [A-Za-z_$][A-Za-z0-9_$-]*');
    }
    const all = await rejectionOf(ctx.rt.patchState({ patch: { cwd: { lazy: { 'has space': 1, 'a.b': 2, план: 3 } } } }), 'PATCH_INVALID');
    expect(all.details).toMatchObject({ reason: 'unreachable-key', at: '/cwd/lazy/has space' });
    // Inside values written whole too, and unscoped with one owner.
    const sole = createRuntime({ store: ctx.ts.store, selection: { cwd: '/repo', mode: 'active' } });
    expect((await rejectionOf(sole.patchState({ patch: { lazy: { list: [{ 'a.b': 1 }] } } }), 'PATCH_INVALID')).details).toMatchObject({
      reason: 'unreachable-key',
      at: '/lazy/list/0/a.b',
    });
    expect(await dump(ctx.ts.store)).toEqual(before);
  });

  it('SF-2 Limits and change authority: every name patch_state adds is reachable by a read_state path; stored names outside the grammar stay readable by their parent, editable and deletable', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { has_space: 1, 'a-b': 2, $plan: 3, list: [{ x1: 'y' }] } } } });
    expect(await ctx.rt.readState({ paths: ['cwd.lazy.has_space', 'cwd.lazy.a-b', 'cwd.lazy.$plan', 'cwd.lazy.list[0].x1'] })).toEqual({ value: [1, 2, 3, 'y'] });
    // What the store holds from another writer (an import of a real document) keeps its keys.
    await ctx.ts.store.publish({ changes: { 'cwd:/repo': { lazy: { deps: { 'lodash.merge': '4.6.2', 'has space': 1 } } } } });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.deps', projection: 'keys' })).toEqual({
      meta: { type: 'object', size: 2 },
      keys: { 'lodash.merge': 'string', 'has space': 'number' },
    });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.deps' })).toEqual({ value: { 'lodash.merge': '4.6.2', 'has space': 1 } });
    // A member the basis has is no new name: it can be rewritten; a new one beside it cannot be added.
    await ctx.rt.patchState({ patch: { cwd: { lazy: { deps: { 'lodash.merge': '4.6.3' } } } } });
    const added = await rejectionOf(ctx.rt.patchState({ patch: { cwd: { lazy: { deps: { 'lodash.omit': '4.5.0' } } } } }), 'PATCH_INVALID');
    expect(added.details).toMatchObject({ reason: 'unreachable-key', at: '/cwd/lazy/deps/lodash.omit' });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { deps: { 'lodash.merge': null, 'has space': null } } } } });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.deps' })).toEqual({ value: {} });
  });

  it('U3 Projections › keys + Request shape ("An absent documented top-level field has value null"): keys of an absent plane is {meta: {type: "null"}, keys: []}', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { t: 1 } } } });
    expect(await ctx.rt.readState({ path: 'cwd.strategy', projection: 'keys' })).toEqual({ meta: { type: 'null' }, keys: [] });
    expect(await ctx.rt.readState({ paths: ['effective.lazy', 'cwd.tactics'], projection: 'keys' })).toEqual({
      meta: [{ type: 'null' }, { type: 'object', size: 1 }],
      keys: [[], { t: 'number' }],
    });
    expect((await rejectionOf(ctx.rt.readState({ path: 'cwd.strategy.x', projection: 'keys' }), 'PATH_NOT_FOUND')).details).toMatchObject({ at: 'cwd.strategy' });
  });

  it('U4 Projections › keys: a string\'s meta length counts UTF-16 code units ({"type": "string", "length": 18420})', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { s: 'a😀é', long: 'x'.repeat(18420) } } } });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.s', projection: 'keys' })).toEqual({ meta: { type: 'string', length: 4 }, keys: [] });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.long', projection: 'keys' })).toEqual({ meta: { type: 'string', length: 18420 }, keys: [] });
  });

  it('U6 patch_state and arrays: "Index syntax is reserved and distinct from an ordinary object key such as "1"" — {"1": "B"} never addresses element 1', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: ['a', 'b'] } } } });
    // "1" is an ordinary key, and one outside the path grammar: patch_state refuses it (SF-2)
    // instead of replacing the array with {"1": "B"} as the recursive patch would
    // (core: applyPatch replaces it; see patch-apply.test.ts).
    const err = await rejectionOf(ctx.rt.patchState({ patch: { cwd: { lazy: { memory: { '1': 'B' } } } } }), 'PATCH_INVALID');
    expect(err.details).toMatchObject({ reason: 'unreachable-key', at: '/cwd/lazy/memory/1' });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.memory' })).toEqual({ value: ['a', 'b'] });
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: { '[1]': 'B' } } } } });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.memory' })).toEqual({ value: ['a', 'B'] });
  });

  it('U7 Intent ownership › "What happens when a patch deletes an intent key" + patch_state and arrays: an indexed write into a target the same patch\'s cascade cleared fails the whole call', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { plan: ['x', 'y'] }, intents: { release: { $ref: 'cwd.lazy.plan' } } } } });
    const before = await dump(ctx.ts.store);
    const err = await rejectionOf(ctx.rt.patchState({ patch: { cwd: { intents: { release: null }, lazy: { plan: { '[0]': 'z' } } } } }), 'PATCH_INVALID');
    expect(err.details).toMatchObject({ reason: 'index-on-non-array', at: '/cwd/lazy/plan' });
    expect(await dump(ctx.ts.store)).toEqual(before);
    // A rewrite of the cleared target in the deleting patch is fresh knowledge, and lands.
    const rewrite = await ctx.rt.patchState({ patch: { cwd: { intents: { release: null }, lazy: { plan: ['z'] } } } });
    expect(rewrite.state_updates.cascaded).toEqual(['cwd.lazy.plan']);
    expect(await ctx.rt.readState({ path: 'cwd.lazy.plan' })).toEqual({ value: ['z'] });
  });

  it('U9 Semantic references ("Only after one requested read_state value path is missing"): a referenced index out of range is INDEX_OUT_OF_RANGE, with no dangling-reference hint', async () => {
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: ['a', 'b'] }, tactics: { note: { $ref: 'cwd.lazy.memory[5]' }, gone: { $ref: 'cwd.lazy.gone' } } } } });
    const err = await rejectionOf(ctx.rt.readState({ path: 'cwd.lazy.memory[5]' }), 'INDEX_OUT_OF_RANGE');
    expect(err.details).toEqual({ path: 'cwd.lazy.memory[5]', index: 5, length: 2, at: 'cwd.lazy.memory[5]' });
    // The missing member referenced the same way gets the sentinel.
    expect(await ctx.rt.readState({ path: 'cwd.lazy.gone' })).toMatchObject({ value: null, hint: [{ type: 'dangling-reference', paths: ['cwd.tactics.gone'] }] });
  });

  it('U10 Semantic model › Hot planes ("Passive omits it automatically"): in Passive mode an explicit session.response read returns what the session stores', async () => {
    await ctx.rt.patchState({ patch: { session: { response: 'the answer' }, cwd: { tactics: { t: 1 } } } });
    const passive = createRuntime({ store: ctx.ts.store, selection: { ...ALL_OWNERS, mode: 'passive' } });
    expect(await passive.readState({ path: 'session.response' })).toEqual({ value: 'the answer' });
    expect(await passive.readState({ path: 'effective.response' })).toEqual({ value: null });
    expect(await passive.readState({ path: 'effective' })).toEqual({ value: { tactics: { t: 1 } } });
    expect((await passive.baseline()).state).toEqual({ tactics: { t: 1 } });
    expect(await ctx.rt.readState({ path: 'effective.response' })).toEqual({ value: 'the answer' });
  });

  it('U11 Semantic references › Textual ("This translation does not scan prose"): a textual $lazy.plan mention is stored verbatim while a structured {"$ref": "lazy.plan"} is anchored', async () => {
    const sole = createRuntime({ store: ctx.ts.store, selection: { cwd: '/repo', mode: 'active' } });
    await sole.patchState({ patch: { lazy: { plan: ['p'] }, tactics: { prose: 'see $lazy.plan and $cwd.tactics.note', ref: { $ref: 'lazy.plan' } } } });
    expect((await ctx.ts.store.state('cwd:/repo')).tactics).toEqual({ prose: 'see $lazy.plan and $cwd.tactics.note', ref: { $ref: 'cwd.lazy.plan' } });
    expect(await sole.readState({ path: 'tactics' })).toEqual({ value: { prose: 'see $lazy.plan and $cwd.tactics.note', ref: { $ref: 'lazy.plan' } } });
  });

  it('U13 Semantic references › Textual ("$ immediately followed by one valid read_state path"): reading $cwd.tactics.note verbatim is PATH_NOT_FOUND; the path after the $ reads', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { note: 'n', prose: 'see $cwd.tactics.note' } } } });
    const err = await rejectionOf(ctx.rt.readState({ path: '$cwd.tactics.note' }), 'PATH_NOT_FOUND');
    expect(err.details).toEqual({ path: '$cwd.tactics.note', at: '$cwd' });
    expect(await ctx.rt.readState({ path: 'cwd.tactics.note' })).toEqual({ value: 'n' });
  });

  it('H4 Response shape › patch ("Historical semantic patch at the selected boundary"): without a selector each root reads its current boundary', async () => {
    await ctx.rt.patchState({ patch: { global: { tactics: { g: 1 } } } }); // transition 1: global rev 1
    await ctx.rt.patchState({ patch: { cwd: { tactics: { c: 1 } } } }); // 2: cwd rev 1
    await ctx.rt.patchState({ patch: { cwd: { tactics: { c: 2 } }, session: { tactics: { s: 1 } } } }); // 3: cwd rev 2, session rev 1
    await ctx.rt.patchState({ patch: { global: { tactics: { g: 2 } } } }); // 4: global rev 2
    // A scope: its own current revision's net patch.
    expect(await ctx.rt.readState({ paths: ['global.tactics', 'cwd.tactics', 'session.tactics'], projection: 'patch' })).toEqual({
      patch: [{ g: 2 }, { c: 2 }, { s: 1 }],
    });
    expect(await ctx.rt.readState({ paths: ['global[2].tactics', 'cwd[2].tactics', 'session[1].tactics'], projection: 'patch' })).toEqual({
      patch: [{ g: 2 }, { c: 2 }, { s: 1 }],
    });
    // effective (and unscoped with several owners): the change of the last transition that changed a selected owner.
    expect(await ctx.rt.readState({ paths: ['effective.tactics', 'tactics', 'effective[4].tactics'], projection: 'patch' })).toEqual({
      patch: [{ g: 2 }, { g: 2 }, { g: 2 }],
    });
    // With one selected owner an unscoped path is that owner's current revision.
    const sole = createRuntime({ store: ctx.ts.store, selection: { cwd: '/repo', mode: 'active' } });
    expect(await sole.readState({ paths: ['tactics', 'effective.tactics'], projection: 'patch' })).toEqual({ patch: [{ c: 2 }, { c: 2 }] });
  });

  it('N6 Request shape › Rules: "projection defaults to value"', async () => {
    await ctx.rt.patchState({ patch: { cwd: { tactics: { next: 'read' }, lazy: { memory: ['a'] } } } });
    expect(await ctx.rt.readState({ path: 'cwd.tactics.next' })).toEqual({ value: 'read' });
    expect(await ctx.rt.readState({ paths: ['cwd.tactics.next', 'cwd.lazy.memory'] })).toEqual({ value: ['read', ['a']] });
    expect(readStateInputSchema.properties.projection.default).toBe('value');
  });

  it('E15 Path and range model: the seed\'s path examples resolve to the values they name', async () => {
    const memory = Array.from({ length: 20 }, (_, i) => `thought ${i}`);
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: memory.slice(0, 10), plan: { steps: ['a'] } }, tactics: { note: 'n' } } } }); // cwd[1]
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory: { '[1]': 'corrected thought' } } } } }); // cwd[2]
    await ctx.rt.patchState({ patch: { cwd: { lazy: { memory } } } }); // cwd[3]
    await ctx.rt.patchState({ patch: { session: { tactics: { nextAction: 'Implement progressive reads.' }, lazy: { investigation: { ranges: 'Ranges are half-open.' } } } } });
    await ctx.rt.patchState({ patch: { session: { lazy: { investigation: { more: 1 } } } } });
    await ctx.rt.patchState({ patch: { session: { lazy: { investigation: { more: 2 } } } } }); // session[3]
    await ctx.rt.patchState({ patch: { global: { lazy: { rules: { ranges: 'Ranges are half-open.' } } } } });
    const paths = [
      'effective.lazy.rules',
      'effective.tactics.nextAction',
      'cwd.lazy.memory[4]',
      'cwd.lazy.memory[10:20]',
      'cwd.lazy.memory[0..10]',
      'cwd.lazy.memory[0..3]',
      'session[3].lazy.investigation',
      'session.tactics.nextAction',
      'cwd[1].lazy.memory',
      'effective.lazy.memory[7]', // the textual reference $effective.lazy.memory[7] without its $
      'cwd.lazy.plan',
      'cwd.tactics.note',
    ];
    expect(await ctx.rt.readState({ paths })).toEqual({
      value: [
        { ranges: 'Ranges are half-open.' },
        'Implement progressive reads.',
        'thought 4',
        memory.slice(10, 20),
        memory.slice(0, 10),
        memory.slice(0, 3),
        { ranges: 'Ranges are half-open.', more: 2 },
        'Implement progressive reads.',
        memory.slice(0, 10),
        'thought 7',
        { steps: ['a'] },
        'n',
      ],
    });
    expect(await ctx.rt.readState({ path: 'cwd.lazy.memory', projection: 'keys' })).toEqual({ meta: { type: 'array', length: 20 }, keys: [] });
    expect(await ctx.rt.readState({ path: 'effective.lazy', projection: 'keys' })).toEqual({
      meta: { type: 'object', size: 4 },
      keys: { rules: 'object', memory: 'array', plan: 'object', investigation: 'object' },
    });
    expect(await ctx.rt.readState({ path: 'cwd[2].lazy.memory', projection: 'patch' })).toEqual({ patch: { '[1]': 'corrected thought' } });
  });
});
