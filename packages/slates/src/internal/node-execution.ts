/**
 * One node of a step (seed ladr-reads-and-writes "nodes", "retrieve"): its fields rendered into
 * the user message, the model called once, or in the bounded retrieve loop when the step
 * declares one, behind the boundary that turns whatever a caller-supplied model does into an
 * answer or a typed error.
 */
import { StateflowError, isJsonObject, isStateflowError } from '@stateflow/core';
import type { FieldDecl, StepDecl } from '../config-types.js';
import { extractJson } from '../extract-json.js';
import type { ModelCompletion, ModelMessage, ModelRequest, TokenUsage } from '../model.js';
import { RETRIEVAL_BUDGET_MESSAGE, documentOf, selectFiles } from '../retrieve.js';
import type { RetrievedDocument } from '../retrieve.js';
import { renderValue } from '../slate-read.js';
import { JOIN } from './run-context.js';
import type { RunCtx } from './run-context.js';
import { resolveSource } from './resolve-source.js';
import type { Resolved } from './resolve-source.js';
import { parseSource } from './source-spec.js';
import type { ParsedSource } from './source-spec.js';

function joinTexts(r: Resolved): string {
  return 'texts' in r ? r.texts.join(JOIN) : renderValue(r.value);
}

function renderFields(ctx: RunCtx, step: StepDecl, node: number, previous: string | undefined): string[] {
  return (step.fields ?? []).map((field: FieldDecl) => {
    const value =
      field.type === 'slateRead'
        ? renderValue(ctx.env.workspace.read(field.from))
        : joinTexts(resolveSource(ctx.env, { who: `Step "${step.id}": text field "${field.name}"`, previousStep: previous, node }, parseSource(field.from) as ParsedSource));
    return `${field.name}:\n${value}`;
  });
}

/** The user message of a step without fields: the previous step's survivors, or the input context. */
function defaultUserContent(ctx: RunCtx, previous: string | undefined): string {
  const run = previous === undefined ? undefined : ctx.env.executed.get(previous);
  if (run !== undefined) return run.survivors.map((i) => run.outputs[i]).join(JOIN);
  return renderValue(ctx.env.input.context ?? '');
}

/** `live` receives the node's answer as it is generated (only for a node without `retrieve`). */
export async function runNode(
  ctx: RunCtx,
  step: StepDecl,
  node: number,
  previous: string | undefined,
  live?: (text: string) => void,
): Promise<{ output: string; retrieval?: { fetches: number; exhausted: boolean; documents: string[] } }> {
  const fields = renderFields(ctx, step, node, previous);
  const user = fields.length > 0 ? fields.join(JOIN) : defaultUserContent(ctx, previous);
  // `documents`: the retrieved documents' message; `exhausted`: the retrieval budget is spent.
  const call = (round: number, retrieved: { documents?: string; exhausted?: boolean } = {}): Promise<string> => {
    const extra = retrieved.documents === undefined ? [] : [retrieved.documents];
    const exhausted = retrieved.exhausted === true;
    const messages: ModelMessage[] = [];
    if (step.systemPrompt !== undefined) messages.push({ role: 'system', content: step.systemPrompt });
    messages.push({ role: 'user', content: [user, ...extra].join(JOIN) });
    if (exhausted) messages.push({ role: 'user', content: RETRIEVAL_BUDGET_MESSAGE });
    return completion(ctx, { messages, step: step.id, node, round }, r === undefined ? live : undefined);
  };
  const r = step.retrieve;
  if (r === undefined) return { output: await call(1) };

  const check = ctx.ladder.checks.requestMatch.get(step.id);
  const docs: RetrievedDocument[] = [];
  const seen = new Set<string>();
  let fetches = 0;
  let exhausted = false;
  let output = await call(1);
  for (;;) {
    const json = extractJson(output);
    if (json === undefined || check === undefined || !check(json) || exhausted) break;
    fetches += 1;
    const request = isJsonObject(json) && json.request !== undefined ? json.request : json;
    const state = ctx.env.workspace.state;
    for (const pick of selectFiles(state, r.to.slate, r.to.folder, request)) {
      if (seen.has(pick.path)) continue;
      seen.add(pick.path);
      ctx.env.workspace.markRead(r.to.slate, pick.folder, pick.file);
      docs.push(documentOf(state, r.to.slate, pick.folder, pick.file, pick.path));
    }
    exhausted = fetches >= r.maxRounds;
    output = await call(fetches + 1, { documents: `${r.as}:\n${JSON.stringify(docs)}`, exhausted });
  }
  return { output, retrieval: { fetches, exhausted, documents: docs.map((d) => d.path) } };
}

/**
 * The boundary to a caller-supplied model: whatever it throws that is not a StateflowError, or
 * an answer that is neither a string nor `{ content: string }`, is `MODEL_FAILED` (with `cause`),
 * naming the step. Adds the call's usage to the run's (unknown usage makes the run's unknown).
 * With `live`, the answer's text is forwarded as the model streams it, and whatever it did not
 * stream when it answers; streamed text that is not the start of the answer is `MODEL_FAILED`.
 */
async function completion(ctx: RunCtx, request: ModelRequest, live?: (text: string) => void): Promise<string> {
  const failed = (what: string, cause?: unknown) =>
    new StateflowError('MODEL_FAILED', `The model ${what} in step "${request.step}" (node ${request.node})`, { step: request.step }, cause === undefined ? undefined : { cause });
  let streamed = '';
  let answered = false;
  const options =
    live === undefined
      ? undefined
      : {
          onDelta: (text: string) => {
            if (answered || typeof text !== 'string' || text === '') return;
            streamed += text;
            live(text);
          },
        };
  let answer: unknown;
  try {
    answer = options === undefined ? await ctx.model.complete(request) : await ctx.model.complete(request, options);
  } catch (err) {
    if (isStateflowError(err)) throw err;
    throw failed(`failed: ${err instanceof Error ? err.message : String(err)}`, err);
  } finally {
    answered = true;
  }
  const done = modelCompletion(answer);
  if (done === undefined) {
    throw failed(`answered with ${answer === null ? 'null' : typeof answer === 'object' ? 'an object without a string content' : `a ${typeof answer}`}, not a string`);
  }
  if (live !== undefined) {
    if (!done.content.startsWith(streamed)) throw failed('streamed text that is not the start of its answer');
    if (done.content.length > streamed.length) live(done.content.slice(streamed.length));
  }
  ctx.usage =
    ctx.usage === null || done.usage === undefined
      ? null
      : {
          promptTokens: ctx.usage.promptTokens + done.usage.promptTokens,
          completionTokens: ctx.usage.completionTokens + done.usage.completionTokens,
          totalTokens: ctx.usage.totalTokens + done.usage.totalTokens,
        };
  return done.content;
}

/** A model's answer as a completion; usage that is not three non-negative integers is unknown. */
function modelCompletion(answer: unknown): ModelCompletion | undefined {
  if (typeof answer === 'string') return { content: answer };
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { content, usage } = answer as { content?: unknown; usage?: Partial<Record<keyof TokenUsage, unknown>> };
  if (typeof content !== 'string') return undefined;
  const counts = [usage?.promptTokens, usage?.completionTokens, usage?.totalTokens];
  if (!counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return { content };
  const [promptTokens, completionTokens, totalTokens] = counts as [number, number, number];
  return { content, usage: { promptTokens, completionTokens, totalTokens } };
}
