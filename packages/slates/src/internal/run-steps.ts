/**
 * The step loop of one ladder call (seed ladr-reads-and-writes; DESIGN.md "Ladder slates as a
 * projection"): per step, in config order, skip it when a step it reads had no survivors, run
 * its nodes in parallel, let the gate decide, `slateWrite` each survivor's JSON, and stop after
 * `exit`. Reads see the call's own earlier writes (they go to the call's workspace).
 */
import { isJsonObject } from '@stateflow/core';
import type { StepDecl } from '../config-types.js';
import { extractJsonBlock, notJsonReason } from '../extract-json.js';
import type { Ladder } from '../load-ladder.js';
import type { LadderRunResult, StepTrace } from '../run-ladder-types.js';
import { isWriteAction } from './catalog.js';
import { evaluateGate } from './gates.js';
import { runNode } from './node-execution.js';
import { NodeOutputOrder } from './output-order.js';
import type { StepOutputs } from './resolve-source.js';
import { JOIN } from './run-context.js';
import type { RunCtx } from './run-context.js';
import { parseSource } from './source-spec.js';
import { refusal } from './workspace.js';
import { observedStep } from './step-telemetry.js';

/**
 * The steps this step takes input from: every `previous` / `{ stepId }` source of its text fields
 * and gated writes, and the previous step when it has no fields (its default user message).
 */
function sourceSteps(step: StepDecl, previous: string | undefined): string[] {
  const deps: string[] = [];
  const fields = step.fields ?? [];
  if (fields.length === 0 && previous !== undefined) deps.push(previous);
  const sources: unknown[] = fields.filter((f) => f.type === 'text').map((f) => f.from);
  for (const action of [step.if?.then, step.if?.else]) if (isWriteAction(action)) sources.push(action.write.from);
  for (const s of sources) {
    const p = parseSource(s);
    if ('kind' in p && p.kind === 'step') deps.push(p.stepId);
    if ('kind' in p && p.kind === 'previous' && previous !== undefined) deps.push(previous);
  }
  return deps;
}

/** Run the ladder's steps into `result` (steps, skipped, aborted). */
export async function runSteps(ctx: RunCtx, result: LadderRunResult): Promise<void> {
  const { config } = ctx.ladder;
  const steps = config.steps;
  const executed = ctx.env.executed as Map<string, StepOutputs>;
  const skipped = new Set<string>();
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as StepDecl;
    const previous = steps[i - 1]?.id;
    const blocked = sourceSteps(step, previous).some((d) => skipped.has(d) || executed.get(d)?.survivors.length === 0);
    if (blocked) {
      skipped.add(step.id);
      result.skipped.push(step.id);
      continue;
    }
    const stop = await observedStep(ctx.observer, ctx.ladderId, step.id, step.nodes ?? 1, () => runStep(ctx, step, previous, result));
    if (stop || step.id === config.exit) return;
  }
}

/** Run one step that is not blocked into `result`; `true` when a gate aborted the run. */
async function runStep(ctx: RunCtx, step: StepDecl, previous: string | undefined, result: LadderRunResult): Promise<boolean> {
  const executed = ctx.env.executed as Map<string, StepOutputs>;
  const nodes = step.nodes ?? 1;
  const stream = step.id === exitStep(ctx.ladder) ? ctx.onOutput : undefined;
  // The exit step streams live only when every node's one answer is its output as it stands:
  // a gate needs the whole answer (and may prune or abort), retrieval rounds may be requests.
  const order = stream !== undefined && step.if === undefined ? new NodeOutputOrder(nodes, JOIN, stream) : undefined;
  // The nodes' model calls run in parallel. Each node's first call is issued synchronously in
  // node order (runNode does not await before calling the model), so a scripted model consumes
  // its lines in node order; later retrieval rounds follow in the order answers arrive.
  const ran = await Promise.all(
    Array.from({ length: nodes }, async (_, node) => {
      const live = order === undefined || step.retrieve !== undefined ? undefined : (text: string) => order.delta(node, text);
      const done = await runNode(ctx, step, node, previous, live);
      if (order !== undefined && live === undefined) order.delta(node, done.output);
      order?.finish(node);
      return done;
    }),
  );
  const outputs = ran.map((r) => r.output);
  const retrieval = ran.flatMap((r) => (r.retrieval === undefined ? [] : [r.retrieval]));
  const { survivors, aborted } = evaluateGate(ctx, step, outputs, previous);
  if (aborted !== undefined) result.aborted = aborted;
  if (stream !== undefined && order === undefined && result.aborted === undefined && survivors.length > 0) {
    stream(survivors.map((i) => outputs[i]).join(JOIN));
  }
  const trace: StepTrace = { id: step.id, outputs, survivors };
  if (retrieval.length > 0) trace.retrieval = retrieval;
  result.steps.push(trace);
  executed.set(step.id, { outputs, survivors });
  if (result.aborted !== undefined) return true;
  slateWriteSurvivors(ctx, step, outputs, survivors);
  return false;
}

/**
 * The step's `slateWrite`, per survivor in node order: the output's first JSON block, when it
 * matches the declared shape, is written (or its `field`); a block that is not JSON by core's
 * definition is a refusal; anything else writes nothing.
 */
function slateWriteSurvivors(ctx: RunCtx, step: StepDecl, outputs: readonly string[], survivors: readonly number[]): void {
  const sw = step.slateWrite;
  const match = ctx.ladder.checks.match.get(step.id);
  if (sw === undefined || match === undefined) return;
  for (const node of survivors) {
    const block = extractJsonBlock(outputs[node] as string);
    if (block === undefined) continue;
    if (!('value' in block)) {
      ctx.env.workspace.refuse(refusal(sw.to, step.id, node, notJsonReason(block.notJson, "the output's first JSON block")));
      continue;
    }
    const json = block.value;
    if (!match(json)) continue;
    const value = sw.field === undefined ? json : isJsonObject(json) ? json[sw.field] : undefined;
    if (value === undefined) continue;
    const on = sw.on ?? 'append';
    ctx.env.workspace.write({ to: sw.to, on, ...(sw.key ? { key: sw.key } : {}), value, step: step.id, node });
  }
}

/** The step whose survivors are the run's output: `exit`, else the last step. */
function exitStep(ladder: Ladder): string | undefined {
  return ladder.config.exit ?? ladder.config.steps[ladder.config.steps.length - 1]?.id;
}

/** The run's output: the exit step's survivors joined with a blank line; `null` when aborted or none survived. */
export function finalOutput(ladder: Ladder, result: LadderRunResult): string | null {
  if (result.aborted !== undefined) return null;
  const id = exitStep(ladder);
  const trace = result.steps.find((s) => s.id === id);
  if (trace === undefined || trace.survivors.length === 0) return null;
  return trace.survivors.map((i) => trace.outputs[i]).join(JOIN);
}
