/**
 * The step runner: one ladder call over a session's slates, committed as ONE store transition
 * (seed ladr-reads-and-writes; DESIGN.md "Ladder slates as a projection").
 *
 * The steps run against the call's workspace (`internal/run-steps.ts`: nodes in
 * `node-execution.ts`, gates in `gates.ts`); this file reads the base, runs them and publishes
 * the call's one net patch, re-applying it on a newer head after a CAS conflict.
 */
import { diff } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { retryOnConflict } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { checkRunOptions } from './internal/run-options.js';
import type { RunCtx } from './internal/run-context.js';
import { finalOutput, runSteps } from './internal/run-steps.js';
import { Workspace } from './internal/workspace.js';
import { isLoadedLadder, loadLadder } from './load-ladder.js';
import type { LadderRunResult, RunLadderOptions } from './run-ladder-types.js';
import { slateContents, toWorkingState } from './slate-state.js';
import { loadTokenCounter } from './token-counter.js';
import { sessionSlateStream } from './sessions/session-record.js';

/**
 * Run one ladder call.
 *
 * All slate writes of the call, and the read recency LRU needs, are published as ONE
 * transition on `slate:<ladder>:<session>` with expected revision = the revision read at the
 * start; on a CONFLICT the call's reads and writes are re-applied on the newer head (model
 * outputs are not recomputed), up to `conflictRetries` times. A call that writes nothing (all
 * writes no-op or refused) and reads no file of an LRU folder publishes nothing; without a
 * session nothing is ever published.
 *
 * @throws INPUT_INVALID when an option has the wrong type or `input` is not JSON (see checkRunOptions);
 *   CONFIG_INVALID when `ladder` is text/an object that does not load, or the encoding is unknown;
 *   SOURCE_UNRESOLVED when a `from:` cannot be resolved (message names the step and branch/field);
 *   MODEL_UNAVAILABLE / MODEL_FAILED from the model; CONFLICT when retries are exhausted.
 *   Nothing is published when it throws.
 */
export async function runLadder(options: RunLadderOptions): Promise<LadderRunResult> {
  checkRunOptions(options);
  const ladder = isLoadedLadder(options.ladder) ? options.ladder : loadLadder(options.ladder);
  const count = await loadTokenCounter(options.encoding);
  const at = (options.clock ?? (() => new Date()))().toISOString();
  const stream = options.session === undefined ? null : sessionSlateStream(options.ladderId ?? ladder.config.name, options.session);
  let { state: base, rev: baseRev } = stream === null ? { state: {}, rev: 0 } : await head(options.store, stream);
  const writeCtx = { catalog: ladder.catalog, count, at };
  let workspace = new Workspace(writeCtx, ladder, toWorkingState(stream, base));
  const input: Record<string, JsonValue> = typeof options.input === 'string' ? { context: options.input } : options.input;
  const ctx: RunCtx = {
    ladder,
    model: options.model,
    count,
    env: { executed: new Map(), input, workspace },
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    onOutput: options.onOutput,
    ladderId: options.ladderId ?? ladder.config.name,
    observer: options.observer,
  };
  const result: LadderRunResult = { output: null, transition: null, stream, slates: {}, evicted: [], refused: [], skipped: [], steps: [], usage: null };
  await runSteps(ctx, result);
  result.output = finalOutput(ladder, result);
  result.usage = ctx.usage;

  // Read recency of LRU folders is state too (it decides what a later write evicts): a call that
  // only reads such files still publishes it, in its one transition.
  if (stream !== null && (workspace.writes > 0 || workspace.lruReads > 0)) {
    const meta = { kind: 'ladder-call', ladder: options.ladderId ?? ladder.config.name, session: options.session as string };
    const published = await retryOnConflict({ attempts: (options.conflictRetries ?? 3) + 1 }, async (attempt) => {
      if (attempt > 1) {
        ({ state: base, rev: baseRev } = await head(options.store, stream));
        workspace = workspace.replayOn(ladder, toWorkingState(stream, base));
      }
      return options.store.publish({
        changes: { [stream]: diff(base, workspace.state) },
        expected: { [stream]: baseRev === 0 ? 'none' : baseRev },
        meta,
      });
    });
    result.transition = published.transition?.seq ?? null;
  }
  result.slates = slateContents(workspace.state);
  result.evicted = workspace.evicted;
  result.refused = workspace.refused;
  return result;
}

/** The slate stream's state and revision now (`{}` at revision 0 when it does not exist). */
async function head(store: Store, stream: string): Promise<{ state: JsonObject; rev: number }> {
  const view = await store.view([stream]);
  return { state: view.streams[stream]?.state ?? {}, rev: view.streams[stream]?.rev ?? 0 };
}
