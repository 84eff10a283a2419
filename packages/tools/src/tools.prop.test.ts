/**
 * Property: for random selections and random valid/invalid tool calls, a rejected call publishes
 * nothing (the store dump is unchanged) and a read never publishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRuntime } from './runtime.js';
import type { Selection } from './selection.js';
import { memoryBackend, dump } from '../test-support/stores.js';
import type { TestStore } from '../test-support/stores.js';
import { fcParams } from '@stateflow/test-kit';

const selection: fc.Arbitrary<Selection> = fc
  .record({
    global: fc.option(fc.constant(true as const), { nil: undefined }),
    cwd: fc.option(fc.constantFrom('/repo', '/other'), { nil: undefined }),
    session: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
    mode: fc.constantFrom('active' as const, 'passive' as const),
  })
  .filter((s) => s.global !== undefined || s.cwd !== undefined || s.session !== undefined)
  .map((s) => {
    const out: Selection = { mode: s.mode };
    if (s.global) out.global = true;
    if (s.cwd !== undefined) out.cwd = s.cwd;
    if (s.session !== undefined) out.session = s.session;
    return out;
  });

const key = fc.constantFrom('a', 'b', 'plan', 'memory', '__proto__', 'bad key', '[0]', '[9]');
const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: 0, max: 9 }), fc.constant(null), fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 3 }));
const value = fc.oneof(leaf, fc.dictionary(key, leaf, { maxKeys: 3 }), fc.record({ $ref: fc.constantFrom('lazy.plan', 'cwd.lazy.plan', 'session.tactics.a') }));
const planeKey = fc.constantFrom('intents', 'strategy', 'tactics', 'artifacts', 'response', 'lazy', 'notes');
const scopePatch = fc.oneof(fc.dictionary(planeKey, fc.oneof(value, fc.dictionary(key, value, { maxKeys: 3 })), { maxKeys: 3 }), leaf);
const patchCall = fc.record({
  patch: fc.oneof(fc.dictionary(fc.constantFrom('global', 'cwd', 'session'), scopePatch, { maxKeys: 3 }), scopePatch as fc.Arbitrary<unknown>),
});
const pathText = fc.constantFrom(
  'cwd.lazy.plan', 'effective.lazy', 'session[1].tactics', 'global[0]', 'effective[2].lazy.memory[0:1]', 'tactics.a',
  'lazy.memory[9]', 'cwd..x', 'cwd.*', 'session.response', 'intents', 'cwd[99]',
);
const readCall = fc.oneof(
  fc.record({ path: pathText, projection: fc.constantFrom('value', 'keys', 'patch') }),
  fc.record({ paths: fc.array(pathText, { minLength: 1, maxLength: 3 }), projection: fc.constantFrom('value', 'keys', 'patch', 'bogus') }),
  fc.record({ path: pathText, offset: fc.integer() }),
);
const call = fc.oneof(fc.record({ tool: fc.constant('patch' as const), input: patchCall }), fc.record({ tool: fc.constant('read' as const), input: readCall }));

describe('tool calls (property)', () => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await memoryBackend.open();
  });
  afterAll(async () => ts.destroy());

  it('a rejected call leaves the store dump unchanged and a read never publishes', async () => {
    await fc.assert(
      fc.asyncProperty(selection, fc.array(call, { minLength: 1, maxLength: 6 }), async (sel, calls) => {
        const rt = createRuntime({ store: ts.store, selection: sel });
        for (const { tool, input } of calls) {
          const before = await dump(ts.store);
          let rejected = false;
          try {
            if (tool === 'read') await rt.readState(input);
            else await rt.patchState(input);
          } catch (err) {
            rejected = true;
            expect(err).toHaveProperty('code');
          }
          if (rejected || tool === 'read') expect(await dump(ts.store)).toEqual(before);
        }
      }),
      fcParams({ share: 0.6 }),
    );
  });
});
