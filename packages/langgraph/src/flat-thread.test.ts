/**
 * A thread stored by the saver before long lists were paged and index entries bucketed — its
 * log verbatim (`test-support/flat-thread.json`): one flat object of 73 messages, a flat index —
 * reads, lists and decodes as the same run stored now does, resumes from its interrupt, and its
 * first new put moves the list into pages and the index into buckets.
 */
import { Command } from '@langchain/langgraph';
import type { StateSnapshot } from '@langchain/langgraph';
import type { BaseMessage } from '@langchain/core/messages';
import { isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { openMemoryStore } from '@stateflow/store';
import { storePerTest } from '@stateflow/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointChanges, viewCheckpoint } from './checkpoint-view.js';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import type { OpenedStore } from './test-support/backends.js';
import { FLAT_THREAD, flatThreadGraph, flatThreadLog } from './test-support/flat-thread.js';

const STREAM = 'langgraph:flat';
const INPUT = { messages: [{ role: 'user', content: 'start' }] };

/** What a LangGraph user sees of a history, without ids and times (the recorded run had its own). */
async function seen(graph: ReturnType<typeof flatThreadGraph>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const snapshot of graph.getStateHistory(FLAT_THREAD) as AsyncIterable<StateSnapshot>) {
    const values = snapshot.values as { step?: number; messages?: BaseMessage[] };
    out.push({
      step: values.step,
      messages: values.messages?.map((m) => [m.getType(), m.content]),
      next: snapshot.next,
      metadata: { source: snapshot.metadata?.source, step: snapshot.metadata?.step },
      interrupts: snapshot.tasks.map((t) => t.interrupts.map((i) => i.value)),
    });
  }
  return out;
}

/** The channel values of each checkpoint of revisions 1..`revs`, in order, as JSON without message ids. */
async function checkpointValues(store: Pick<OpenedStore['store'], 'stateAt'>, revs: number): Promise<string[]> {
  const out: string[] = [];
  let last: string | undefined;
  for (let rev = 1; rev <= revs; rev++) {
    const view = await viewCheckpoint(await store.stateAt(STREAM, rev));
    if (view === null || view.checkpoint_id === last) continue;
    last = view.checkpoint_id;
    out.push(JSON.stringify(view.channel_values).replace(/"id":"[^"]*"/g, ''));
  }
  return out;
}

/** The messages value of a checkpoint state, as stored. */
function storedMessages(state: JsonObject): JsonObject {
  const channels = state['channels'] as JsonObject;
  return (channels['messages'] as JsonObject)['value'] as JsonObject;
}

describe.each(backends)('a thread stored before pages on $name', (backend) => {
  let opened: OpenedStore;
  storePerTest(backend, { beforeEach, afterEach }, (o) => {
    opened = o;
  });

  it('is the flat form, and reads, lists and decodes as the same run stored now does', async () => {
    await opened.store.appendMany(flatThreadLog());
    const head = await opened.store.state(STREAM);
    expect(storedMessages(head)['$len']).toBe(73);
    expect(Object.keys(storedMessages(head))).toHaveLength(74);
    expect(Object.keys(await opened.store.state('langgraph-index:flat'))).not.toContain('$ids');

    const now = await openMemoryStore();
    try {
      await flatThreadGraph(new StateflowSaver(now)).invoke(INPUT, FLAT_THREAD);
      expect(Object.keys(storedMessages(await now.state(STREAM)))).toEqual(['$len', '$pages']);
      const recorded = await seen(flatThreadGraph(new StateflowSaver(opened.store)));
      expect(recorded).toHaveLength(10);
      expect(recorded).toEqual(await seen(flatThreadGraph(new StateflowSaver(now))));
      // Every checkpoint decodes as the same checkpoint stored now. (Revisions are compared by the
      // checkpoint they hold: LangGraph runs a step's putWrites beside the next put, so which of the
      // two lands first differs from run to run, and a revision number is not a checkpoint.)
      const revs = (await opened.store.head(STREAM)).rev;
      expect((await now.head(STREAM)).rev).toBe(revs);
      const [recordedValues, nowValues] = await Promise.all([checkpointValues(opened.store, revs), checkpointValues(now, revs)]);
      expect(recordedValues).toHaveLength(10);
      expect(recordedValues).toEqual(nowValues);
    } finally {
      await now.close();
    }
  });

  it('resumes from its interrupt; its next put stores the list in pages and the index in buckets', async () => {
    await opened.store.appendMany(flatThreadLog());
    const before = (await opened.store.head(STREAM)).rev;
    const result = (await flatThreadGraph(new StateflowSaver(opened.store)).invoke(new Command({ resume: 'yes' }), FLAT_THREAD)) as { messages: BaseMessage[] };
    expect(result.messages).toHaveLength(74);
    expect(result.messages.at(-1)?.content).toBe('approved: yes');

    const head = await opened.store.state(STREAM);
    expect(storedMessages(head)['$len']).toBe(74);
    expect(Object.keys(storedMessages(head))).toEqual(['$len', '$pages']);
    const index = await opened.store.state('langgraph-index:flat');
    expect(Object.keys(index).sort()).toEqual(['$from', '$head', '$ids', '$state']);
    expect(isJsonObject(index['$ids'])).toBe(true);

    // What a step changed reads the same across the change of form (show and diff print this).
    const headRev = (await opened.store.head(STREAM)).rev;
    const changes = checkpointChanges(await viewCheckpoint(await opened.store.stateAt(STREAM, before)), await viewCheckpoint(await opened.store.stateAt(STREAM, headRev)));
    expect(changes.channel_values['messages']).toEqual({ appended: [expect.objectContaining({ content: 'approved: yes', type: 'ai' })] });

    // Every checkpoint, old and new, by id from a new saver (a new process); the audit is clean.
    const fresh = new StateflowSaver(opened.store);
    const listed = [];
    for await (const tuple of fresh.list(FLAT_THREAD)) listed.push(tuple);
    expect(listed).toHaveLength(11);
    for (const tuple of listed) expect((await new StateflowSaver(opened.store).getTuple(tuple.config))?.checkpoint.id).toBe(tuple.checkpoint.id);
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });
});
