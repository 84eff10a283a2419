/**
 * A LangGraph thread as steps (contract `historyLangGraphStepsRoute`): the revisions of a
 * checkpoint stream of `@stateflow/langgraph` (its README "The stored layout": one revision per
 * `put`, one per batch of `putWrites`, each described by `meta.langgraph`) grouped by checkpoint,
 * one step per checkpoint in the order they were put. Each step shows the checkpoint as of the
 * last revision read that describes it, decoded by that package's `viewCheckpoint` (channel
 * values and messages as LangGraph shows them, not the stored `$len`/`$null` form), its
 * metadata's step and source, the channels that differ from the step before, and its pending
 * writes with their task and the node that ran it (from the stored `task_path`).
 *
 * `@stateflow/langgraph`, and LangChain with it, is loaded on the first such request only: it is
 * an optional peer dependency of the server, and without it the view answers
 * `PACKAGE_NOT_INSTALLED` (501).
 */
import { isJsonObject, missingPackage } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { LangGraphStep, LangGraphSteps, StepWrite } from '@stateflow/http-contract';
import type { CheckpointView } from '@stateflow/langgraph';
import type { Store, StreamHead, Transition } from '@stateflow/store';
import { revisionIn } from '../history/stream-position.js';
import { transitionRef } from './transition-ref.js';

/** A step being gathered: its checkpoint, the revisions describing it, the last one read. */
interface Gathered {
  checkpointId: string;
  first: Transition;
  firstRev: number;
  lastRev: number;
  revs: number;
  metadata: JsonObject;
}

/** LangGraph's task path of a node run by a pull task: `~__pregel_pull, <node>`. */
const PULL_TASK = /^~__pregel_pull, (.+)$/;

/**
 * One page of the steps of checkpoint stream `head.stream`, from revision `from` (≥ origin + 1).
 * @throws STORE_CORRUPT when a revision's state is not a checkpoint state; PACKAGE_NOT_INSTALLED
 *   `{ package, feature }` when `@stateflow/langgraph` (or LangChain under it) is not installed
 */
export async function langGraphSteps(store: Store, head: StreamHead, page: { from: number; limit: number }): Promise<LangGraphSteps> {
  const from = Math.max(page.from, head.origin + 1);
  const out: LangGraphSteps = { stream: head.stream, thread_id: null, steps: [], next: null };
  if (from > head.rev) return out;
  const gathered: Gathered[] = [];
  const byId = new Map<string, Gathered>();
  for await (const transition of store.transitions({ stream: head.stream, from: await store.revisionSeq(head.stream, from), to: head.seq })) {
    const rev = revisionIn(transition, head.stream);
    const langgraph = transition.meta?.['langgraph'];
    if (!isJsonObject(langgraph) || typeof langgraph['checkpoint_id'] !== 'string') continue;
    if (typeof langgraph['thread_id'] === 'string') out.thread_id = langgraph['thread_id'];
    const id = langgraph['checkpoint_id'];
    let step = byId.get(id);
    if (step === undefined && langgraph['op'] === 'put') {
      if (gathered.length >= page.limit) {
        out.next = rev;
        break;
      }
      step = { checkpointId: id, first: transition, firstRev: rev, lastRev: rev, revs: 0, metadata: isJsonObject(langgraph['metadata']) ? langgraph['metadata'] : {} };
      gathered.push(step);
      byId.set(id, step);
    }
    if (step === undefined) continue;
    step.lastRev = rev;
    step.revs++;
  }
  const { viewCheckpoint } = await import('@stateflow/langgraph').catch((err: unknown) => {
    throw missingPackage(err, 'The LangGraph steps view (GET /v1/history/langgraph-steps)') ?? err;
  });
  let previous: CheckpointView | null = null;
  for (const step of gathered) {
    const state = await store.stateAt(head.stream, step.lastRev);
    const view = await viewCheckpoint(state);
    if (view === null) continue;
    out.steps.push(stepOf(head.stream, step, view, previous, state));
    previous = view;
  }
  return out;
}

function stepOf(stream: string, step: Gathered, view: CheckpointView, previous: CheckpointView | null, state: JsonObject): LangGraphStep {
  const { metadata } = step;
  const channels = view.channel_values;
  const changed = Object.keys(channels).filter((channel) => previous === null || JSON.stringify(previous.channel_values[channel]) !== JSON.stringify(channels[channel]));
  const messages = channels['messages'];
  return {
    ...transitionRef(step.first, stream, step.firstRev),
    checkpoint_id: view.checkpoint_id,
    ...(view.parent_checkpoint_id === undefined ? {} : { parent_checkpoint_id: view.parent_checkpoint_id }),
    ts: view.ts,
    step: typeof metadata['step'] === 'number' ? metadata['step'] : null,
    source: typeof metadata['source'] === 'string' ? metadata['source'] : null,
    channel_values: channels,
    changed,
    messages: Array.isArray(messages) ? messages : [],
    pending_writes: view.pending_writes.map((write): StepWrite => {
      const node = nodeOf(state, write.task_id);
      return { ...write, ...(node === undefined ? {} : { node }) };
    }),
    revs: step.revs,
  };
}

/** The node a task ran, from the task path its stored writes carry (pull tasks only). */
function nodeOf(state: JsonObject, taskId: string): string | undefined {
  const writes = state['writes'];
  if (!isJsonObject(writes)) return undefined;
  for (const entry of Object.values(writes)) {
    if (isJsonObject(entry) && entry['task_id'] === taskId && typeof entry['task_path'] === 'string') return PULL_TASK.exec(entry['task_path'])?.[1];
  }
  return undefined;
}
