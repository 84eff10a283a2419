/**
 * Undo properties through the store (README "Undo"), on random interleavings of three writers
 * A, B and C over two streams: undoing A since a random seq s (a dry run, so open conflicts are
 * seen as well) leaves every path only B or C changed after s byte-identical to the head, and
 * equals a replay of the history without A's transitions after s at every path no conflict
 * touches. A history costs about 2 ms, so the property takes 20 shares: 2,000 histories in
 * `npm test`, 10,000 in `npm run test:deep` (`STATEFLOW_FC_RUNS=500`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, isJsonObject, isStateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Store, Transition, UndoConflict } from './types.js';
import { memoryBackend } from './test-support/backends.js';
import { fcParams } from '@stateflow/test-kit';

const params = fcParams({ share: 20 });
const WRITERS = ['A', 'B', 'C'] as const;
const STREAMS = ['global', 'cwd:/r'];

const leafArb: fc.Arbitrary<JsonValue> = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }));
const memberArb: fc.Arbitrary<JsonValue | null> = fc.oneof(
  leafArb,
  fc.constant(null),
  fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(leafArb, fc.constant(null)), { minKeys: 1, maxKeys: 2 }),
  fc.record({ '[0]': fc.integer({ min: 4, max: 6 }) }),
);
const patchArb = fc.dictionary(fc.constantFrom('a', 'b', 'c'), memberArb, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<JsonObject>;
const stepArb = fc.record({ writer: fc.constantFrom(...WRITERS), stream: fc.constantFrom(...STREAMS, 'both'), patch: patchArb });
const historyArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 12 }), since: fc.nat({ max: 12 }) });

/** Publish each step as its writer; steps whose patch does not apply are left out. */
async function publishAll(store: Store, steps: { writer: string; stream: string; patch: JsonObject }[]): Promise<void> {
  for (const { writer, stream, patch } of steps) {
    const changes = stream === 'both' ? Object.fromEntries(STREAMS.map((s) => [s, patch])) : { [stream]: patch };
    try {
      await store.publish({ changes, meta: { writer: { user: writer, surface: 'test' } } });
    } catch (err) {
      if (!isStateflowError(err, 'PATCH_INVALID')) throw err;
    }
  }
}

/** Every leaf (scalar, array, empty object) of `value` by RFC 6901 pointer. */
function leaves(value: JsonValue, at = '', out = new Map<string, JsonValue>()): Map<string, JsonValue> {
  if (isJsonObject(value) && Object.keys(value).length > 0) for (const [k, v] of Object.entries(value)) leaves(v as JsonValue, `${at}/${k}`, out);
  else out.set(at, value);
  return out;
}

/** The pointers a patch writes (its leaves, `"[N]"` members included as steps). */
function written(patch: JsonObject): string[] {
  return [...leaves(patch).keys()];
}

/** `state` with `patch` applied (`{}` changes nothing). */
const applied = (state: JsonObject, patch: JsonObject): JsonObject => (Object.keys(patch).length === 0 ? state : applyPatch(state, patch));

function get(state: JsonObject, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = state;
  for (const key of pointer.split('/').slice(1)) node = isJsonObject(node) ? node[key] : undefined;
  return node;
}

/** Whether one pointer is the other or lies inside it (`"[N]"` steps count as their array). */
const related = (a: string, b: string): boolean => {
  const strip = (p: string) => p.replace(/\/\[\d+\](?=\/|$).*$/, '');
  const [x, y] = [strip(a), strip(b)];
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
};

/**
 * `patch` without the `"[N]"` writes whose element `state` lacks: a replay without A meets them
 * where A made the array (the undo answers those paths with a conflict).
 */
function fitted(state: JsonValue | undefined, patch: JsonValue): JsonValue | undefined {
  if (!isJsonObject(patch)) return patch;
  const indexed = Object.keys(patch).some((k) => /^\[\d+\]$/.test(k));
  if (indexed && !Array.isArray(state)) return undefined;
  const out: JsonObject = {};
  let dropped = false;
  for (const [k, v] of Object.entries(patch)) {
    const at = indexed ? (state as JsonValue[])[Number(k.slice(1, -1))] : isJsonObject(state) ? state[k] : undefined;
    const part = indexed && at === undefined ? undefined : v === null ? null : fitted(at, v as JsonValue);
    if (part === undefined) dropped = true;
    else out[k] = part;
  }
  return dropped && Object.keys(out).length === 0 ? undefined : out;
}

/** Each stream's state after `since` with only the transitions not by A replayed (fitted), from its state at `since`. */
async function replayWithoutA(store: Store, since: number, log: Transition[]): Promise<Record<string, JsonObject>> {
  const states = await store.statesAt(STREAMS, since);
  for (const t of log) {
    if (t.seq <= since || (t.meta?.writer as JsonObject).user === 'A') continue;
    for (const c of t.changes) states[c.stream] = applied(states[c.stream] as JsonObject, (fitted(states[c.stream], c.patch) ?? {}) as JsonObject);
  }
  return states;
}

describe('undo properties', () => {
  it('leaves what only B and C changed byte-identical, and equals a replay without A wherever there is no conflict', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, async ({ steps, since: s }) => {
        const h = await memoryBackend.create({ checkpointInterval: 3 });
        try {
          const store = h.store;
          await publishAll(store, steps);
          const since = Math.min(s, store.lastSeq());
          const log: Transition[] = [];
          for await (const t of store.transitions()) log.push(t);
          const preview = await store.undo({ writer: { user: 'A' }, since, dryRun: true });
          if (preview.status !== 'preview') throw new Error(`expected a preview, got ${preview.status}`);
          const without = await replayWithoutA(store, since, log);
          for (const stream of STREAMS) {
            const head = await store.state(stream);
            const result = applied(head, preview.patches[stream] ?? {});
            const conflicts = preview.conflicts.filter((c: UndoConflict) => c.stream === stream).map((c) => c.path);
            const after = log.filter((t) => t.seq > since);
            const byA = after.filter((t) => (t.meta?.writer as JsonObject).user === 'A').flatMap((t) => t.changes.filter((c) => c.stream === stream).flatMap((c) => written(c.patch)));
            const byOthers = after.filter((t) => (t.meta?.writer as JsonObject).user !== 'A').flatMap((t) => t.changes.filter((c) => c.stream === stream).flatMap((c) => written(c.patch)));
            for (const p of byOthers) {
              if (byA.some((q) => related(p, q))) continue;
              const path = p.replace(/\/\[\d+\](?=\/|$).*$/, '');
              expect(JSON.stringify(get(result, path)), `${stream} ${path} only B or C changed`).toBe(JSON.stringify(get(head, path)));
            }
            const expected = without[stream] as JsonObject;
            for (const p of new Set([...leaves(result).keys(), ...leaves(expected).keys()])) {
              if (conflicts.some((c) => related(p, c))) continue;
              expect(get(result, p), `${stream} ${p} without A`).toEqual(get(expected, p));
            }
          }
        } finally {
          await h.destroy();
        }
      }),
      params,
    );
  });
});
