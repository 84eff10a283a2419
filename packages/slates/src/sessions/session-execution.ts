/**
 * Execution state of a ladder call paused mid-run (seeds/ladr-stateful-sessions.txt "Paused
 * (optional). A session can be paused mid-execution via the debug API. The current execution
 * state is preserved; the session can be resumed from where it left off.").
 *
 * The runner's only suspension point is a model call, so pausing is done at that seam: a
 * recording model checks for a pause request before each model call (the step in flight has
 * finished), records every model output so far, and waits. A resume in the same process lets
 * the call continue; after a restart, a replaying model answers the recorded calls from the
 * store and the run continues with the real model from the step reached. Slate writes are
 * published once, at the end of the call, so a paused call has written nothing yet.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { JsonObject } from '@stateflow/core';
import type { CompleteOptions, Model, ModelCompletion, ModelRequest } from '../model.js';

/** The layout of {@link RecordedCall}. */
const RecordedCallSchema = Type.Object({
  step: Type.String(),
  node: Type.Integer({ minimum: 0 }),
  round: Type.Integer({ minimum: 1 }),
  output: Type.String(),
  usage: Type.Optional(Type.Object({ promptTokens: Type.Number(), completionTokens: Type.Number(), totalTokens: Type.Number() })),
});

/** One model call already answered in a paused run; `usage`: the call's token usage, when the model reported it. */
export type RecordedCall = Static<typeof RecordedCallSchema>;

/** The layout of {@link ExecutionState}, as `SessionRecord.execution` holds it. */
export const ExecutionStateSchema = Type.Object({
  step: Type.String(),
  node: Type.Integer({ minimum: 0 }),
  round: Type.Integer({ minimum: 1 }),
  calls: Type.Array(RecordedCallSchema),
  call: Type.Unsafe<JsonObject>(Type.Record(Type.String(), Type.Unknown())),
});

/**
 * The execution state stored on a paused session (`SessionRecord.execution`): where the run
 * stopped (`step`, `node`, `round`: the model call about to be made), every model output of the
 * run so far in call order (`calls`: the node outputs reached), and `call`, the caller's
 * description of the interrupted call (for the HTTP server: `{ context, model }`), needed to run
 * it again after a restart.
 */
export type ExecutionState = Static<typeof ExecutionStateSchema>;

/** Hook a session call gives its model: resolves at once unless a pause was requested. */
export interface PauseCheckpoint {
  /**
   * Called before each model call. When a pause was requested, records `snapshot()` as the
   * session's execution state, marks it paused, and resolves only when it is resumed.
   * @throws SESSION_CLOSED when the session is closed while paused; SESSION_PAUSED when the
   *   manager shuts down while paused (the state stays recorded; resume after restart).
   */
  checkpoint(snapshot: () => ExecutionState): Promise<void>;
}

const key = (r: { step: string; node: number; round: number }) => `${r.step}\u0000${r.node}\u0000${r.round}`;

/**
 * Wrap `model` so a call can pause before any model call, recording the outputs so far.
 * `replay` holds calls recorded by an earlier pause: they are answered from it, not the model.
 */
export function pausableModel(
  model: Model,
  control: PauseCheckpoint,
  call: JsonObject,
  replay: readonly RecordedCall[] = [],
): Model {
  const calls: RecordedCall[] = [];
  const recorded = new Map(replay.map((r) => [key(r), { output: r.output, ...(r.usage === undefined ? {} : { usage: r.usage }) }]));
  return {
    async complete(request: ModelRequest, options?: CompleteOptions): Promise<string | ModelCompletion> {
      const { step, node, round } = request;
      const replayed = recorded.get(key(request));
      if (replayed !== undefined) {
        calls.push({ step, node, round, ...replayed });
        return replayed.usage === undefined ? replayed.output : { content: replayed.output, usage: replayed.usage };
      }
      await control.checkpoint(() => ({ step, node, round, calls: [...calls], call }));
      const answer = await model.complete(request, options);
      const done = typeof answer === 'string' ? { content: answer } : answer;
      calls.push({ step, node, round, output: done.content, ...(done.usage === undefined ? {} : { usage: done.usage }) });
      return answer;
    },
  };
}
