/**
 * Conformance: `undo` (store README "Undo"): one writer's transitions since a seq, time or tag
 * undone as one transition — a three-way merge of the head with the state without them — with
 * the other writers' work left exactly as it is and conflicts by stream and path.
 */
import type { JsonObject, WriterMatch } from '@stateflow/core';
import { setTag } from '@stateflow/store';
import type { Store, Transition, UndoResult } from '@stateflow/store';
import type { ConformanceOptions, StoreInitializer, TestApi } from '../initializer.js';
import { assert, assertJsonEqual, rejectsWithCode } from '../internal/assert.js';
import { defineGroup, type GroupBuilder } from '../internal/group.js';
import { accept } from '../internal/publish.js';

const MAIN = 'cwd:/work/project';
const NOTES = 'session:notes';
const AGENT = { user: 'agent-7', surface: 'mcp-http', client: 'claude-code/1.2.0' };
const ANA = { user: 'ana', surface: 'http' };

/** Publish `changes` as `writer`. */
const as = (store: Store, writer: JsonObject, changes: Record<string, JsonObject>): Promise<Transition> => accept(store, changes, { meta: { writer } });

/** The writer the store recorded for `t` as a match on every field (a server records its caller, whatever the meta said). */
function recordedWriter(t: Transition): WriterMatch {
  const writer = t.meta?.writer as Record<string, string>;
  const match: WriterMatch = {};
  for (const key of ['user', 'surface', 'client', 'ladder'] as const) if (writer[key] !== undefined) match[key] = writer[key];
  return match;
}

/** Assert the result was `status` and return it narrowed. */
function expectStatus<S extends UndoResult['status']>(result: UndoResult, status: S): Exclude<UndoResult, { status: 'duplicate' }> & { status: S } {
  assert.equal(result.status, status, `undo ${JSON.stringify(result)} should be ${status}`);
  return result as Exclude<UndoResult, { status: 'duplicate' }> & { status: S };
}

/**
 * Register the `undo` group: the undone writer's changes go and everyone else's stay; a dry run
 * previews and publishes nothing; conflicts refuse the undo unless settled; `since` as a seq, a
 * time or a tag; compacted ranges, stale heads and bad input are refused.
 */
export function undoGroup(init: StoreInitializer, api: TestApi, options: ConformanceOptions = {}): void {
  defineGroup('undo', 'undo', init, api, options, ({ test }) => {
    byWriter(test);
    sinceForms(test);
    refusals(test);
  });
}

function byWriter(test: GroupBuilder['test']): void {
  test("undoes one writer's changes on every stream, leaving the other writer's as they are, in one transition", async ({ store, callerMeta }) => {
    await as(store, ANA, { [MAIN]: { strategy: { plan: 'v1' }, lazy: { notes: { a: 'kept' } } } });
    await as(store, AGENT, { [MAIN]: { strategy: { plan: 'poisoned' }, tactics: { next: 'rm -rf' } }, [NOTES]: { bad: true } });
    await as(store, ANA, { [MAIN]: { lazy: { notes: { b: 'also kept' } } } });
    const kept = ((await store.state(MAIN)).lazy as JsonObject).notes;
    const preview = expectStatus(await store.undo({ writer: { user: 'agent-7' }, since: 1, dryRun: true }), 'preview');
    assertJsonEqual(preview.undone, [2], 'undone');
    assertJsonEqual(preview.patches, { [MAIN]: { strategy: { plan: 'v1' }, tactics: null }, [NOTES]: { bad: null } }, 'patches');
    assert.equal(store.lastSeq(), 3, 'a dry run publishes nothing');
    const result = expectStatus(await store.undo({ writer: { client: 'claude-code' }, since: 1, expected: preview.heads }), 'accepted');
    assertJsonEqual(await store.state(MAIN), { strategy: { plan: 'v1' }, lazy: { notes: { a: 'kept', b: 'also kept' } } }, 'state after the undo');
    assert.equal(((await store.state(MAIN)).lazy as JsonObject).notes, kept, "the other writer's subtree is the same value");
    assertJsonEqual(await store.state(NOTES), {}, 'notes');
    assertJsonEqual(callerMeta(result.transition.meta), { undo: { writer: { client: 'claude-code' }, since: 1, through: 3, seqs: [2] } }, 'meta');
    assertJsonEqual((await store.audit()).problems, [], 'audit');
  }, { needsCallerWriter: true });

  test('a path another writer changed after the undone writer is a conflict, refused until settled', async ({ store }) => {
    await as(store, ANA, { [MAIN]: { strategy: { plan: 'v1' } } });
    await as(store, AGENT, { [MAIN]: { strategy: { plan: 'poisoned' } } });
    await as(store, ANA, { [MAIN]: { strategy: { plan: 'v2 on top' } } });
    const err = await rejectsWithCode(store.undo({ writer: AGENT, since: 1 }), 'UNDO_CONFLICT');
    assertJsonEqual(err.details.conflicts, [{ stream: MAIN, path: '/strategy/plan', base: 'poisoned', ours: 'v2 on top', theirs: 'v1' }], 'conflicts');
    assert.equal(store.lastSeq(), 3, 'nothing published');
    expectStatus(await store.undo({ writer: AGENT, since: 1, prefer: 'ours' }), 'noop');
    expectStatus(await store.undo({ writer: AGENT, since: 1, resolve: { [MAIN]: { '/strategy/plan': 'theirs' } } }), 'accepted');
    assertJsonEqual(await store.state(MAIN), { strategy: { plan: 'v1' } }, 'settled theirs');
  }, { needsCallerWriter: true });
}

function sinceForms(test: GroupBuilder['test']): void {
  test("since a seq, a time or a tag: undoing the one writer's transitions restores the state there", async ({ store }) => {
    const first = await as(store, ANA, { [MAIN]: { strategy: { plan: 'v1' } } });
    const writer = recordedWriter(first);
    await setTag(store, 'before-cleanup');
    const later = await as(store, ANA, { [MAIN]: { strategy: { plan: 'v2' }, tactics: { next: 'x' } } });
    await as(store, ANA, { [MAIN]: { tactics: { next: 'y' } } });
    for (const since of [{ tag: 'before-cleanup' }, 2, { seq: 2 }, { time: later.time }] as const) {
      const preview = expectStatus(await store.undo({ writer, since, dryRun: true }), 'preview');
      assertJsonEqual(preview.patches, { [MAIN]: { strategy: { plan: 'v1' }, tactics: null } }, `patches since ${JSON.stringify(since)}`);
    }
    expectStatus(await store.undo({ writer, since: { tag: 'before-cleanup' } }), 'accepted');
    assertJsonEqual(await store.state(MAIN), { strategy: { plan: 'v1' } }, 'restored');
    expectStatus(await store.undo({ writer: { user: 'nobody' }, since: 0 }), 'noop');
  });
}

function refusals(test: GroupBuilder['test']): void {
  test('refuses a compacted range, a stale head, a missing tag and malformed input, publishing nothing', async ({ store }) => {
    const first = await as(store, ANA, { [MAIN]: { n: 0 } });
    for (let i = 1; i <= 5; i++) await as(store, ANA, { [MAIN]: { n: i } });
    const writer = recordedWriter(first);
    await store.compact(MAIN, { keepRevisions: 2 });
    await rejectsWithCode(store.undo({ writer, since: 0 }), 'HISTORY_NOT_RETAINED', 'a compacted range');
    await rejectsWithCode(store.undo({ writer, since: 5, expected: { [MAIN]: 1 } }), 'CONFLICT', 'a stale head');
    await rejectsWithCode(store.undo({ writer, since: { tag: 'missing' } }), 'TAG_NOT_FOUND', 'a missing tag');
    await rejectsWithCode(store.undo({ writer: {}, since: 0 }), 'INPUT_INVALID', 'no writer field');
    await rejectsWithCode(store.undo({ writer, since: { at: 1 } as never }), 'INPUT_INVALID', 'a malformed since');
    assert.equal(store.lastSeq(), 6, 'nothing published');
  });
}
