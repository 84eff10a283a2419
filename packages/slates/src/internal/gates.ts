/**
 * Gates (seed ladr-reads-and-writes "Gates"): per node, whether its output matches the step's
 * `if`, which nodes survive, what a gated write stores, and where an `abort` ends the run.
 */
import type { JsonValue } from '@stateflow/core';
import type { GateAction, StepDecl, WritePolicy, WriteTarget } from '../config-types.js';
import { extractJson, notJsonReason, parseJsonText } from '../extract-json.js';
import type { AbortedAt } from '../run-ladder-types.js';
import { renderValue } from '../slate-read.js';
import { isWriteAction } from './catalog.js';
import { JOIN } from './run-context.js';
import type { RunCtx } from './run-context.js';
import { resolveSource } from './resolve-source.js';
import type { Resolved, SourceUse } from './resolve-source.js';
import { parseSource } from './source-spec.js';
import type { ParsedSource } from './source-spec.js';
import { refusal } from './workspace.js';

/**
 * The value a gated write stores, `undefined` for a no-op, or `{ refused }` when a `mergeByKey`
 * source text parses but is not JSON by core's definition (`[1e999]`).
 */
function writeValue(ctx: RunCtx, resolved: Resolved, to: WriteTarget, on: WritePolicy): { value: JsonValue } | { refused: string } | undefined {
  if ('value' in resolved) {
    if (resolved.value === null) return undefined;
    return { value: to.metatag === undefined && on !== 'mergeByKey' ? renderValue(resolved.value) : resolved.value };
  }
  if (on === 'mergeByKey') {
    const items: JsonValue[] = [];
    for (const t of resolved.texts) {
      const block = parseJsonText(t);
      if (block === undefined) return { value: resolved.texts.join(JOIN) }; // text, merged as one item
      if (!('value' in block)) return { refused: notJsonReason(block.notJson) };
      items.push(...(Array.isArray(block.value) ? block.value : [block.value]));
    }
    return { value: items };
  }
  if (to.metatag === undefined) return { value: resolved.texts.join(JOIN) };
  const type = ctx.ladder.catalog.get(to.slate)?.folders.get(to.folder)?.files.get(to.file)?.metatags.get(to.metatag);
  if (resolved.multi) return { value: type === 'string' ? resolved.texts.join(JOIN) : resolved.texts };
  return { value: resolved.texts[0] as string };
}

/** True when the output takes the gate's `then` branch: `equals` on the trimmed text, else `jsonMatches`. */
function gateMatches(ctx: RunCtx, step: StepDecl, output: string): boolean {
  const gate = step.if;
  if (gate === undefined) return true;
  if (gate.equals !== undefined) return output.trim() === gate.equals;
  const json = extractJson(output);
  const check = ctx.ladder.checks.jsonMatches.get(step.id);
  return json !== undefined && check !== undefined && check(json);
}

/** What a step's gate decided over its nodes' outputs. */
export interface GateDecision {
  /** 0-based nodes that survive, in node order. */
  survivors: number[];
  /** Set when a node's branch was `abort`: the run ends there (later nodes are not judged). */
  aborted?: AbortedAt;
}

/**
 * The step's gate, per node in node order (seed ladr-reads-and-writes "Gates"): the branch the
 * output takes, whether the node survives (`then`, or a `continue` action), the gated write of
 * the branch (into the call's workspace; a refusal when its value is not JSON), or an `abort`
 * that ends the run. A step without a gate keeps every node.
 */
export function evaluateGate(ctx: RunCtx, step: StepDecl, outputs: readonly string[], previous: string | undefined): GateDecision {
  const survivors: number[] = [];
  for (let node = 0; node < outputs.length; node++) {
    const output = outputs[node] as string;
    const matched = gateMatches(ctx, step, output);
    const branch = matched ? 'then' : 'else';
    const action: GateAction | undefined = matched ? (step.if?.then ?? 'continue') : step.if?.else;
    if (action === 'abort') return { survivors, aborted: { step: step.id, node, branch } };
    if (matched || action === 'continue') survivors.push(node);
    if (isWriteAction(action)) {
      const w = action.write;
      const on = w.on ?? 'append';
      const use: SourceUse = { who: `Step "${step.id}": gated write (${branch})`, previousStep: previous, node, output };
      const value = writeValue(ctx, resolveSource(ctx.env, use, parseSource(w.from) as ParsedSource), w.to, on);
      if (value !== undefined && 'refused' in value) ctx.env.workspace.refuse(refusal(w.to, step.id, node, value.refused));
      else if (value !== undefined) ctx.env.workspace.write({ to: w.to, on, ...(w.key ? { key: w.key } : {}), value: value.value, step: step.id, node });
    }
  }
  return { survivors };
}
