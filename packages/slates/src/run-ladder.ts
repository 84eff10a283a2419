/**
 * The step runner: one ladder call over a session's slates, committed as ONE store transition
 * (seed ladr-reads-and-writes; DESIGN.md "Ladder slates as a projection").
 *
 * Per step, in config order: resolve fields → call the model once per node (with the bounded
 * retrieve loop when declared) → evaluate the gate per node (survivors, gated writes, abort) →
 * slateWrite per survivor → stop after `exit`. Reads see the call's own earlier writes.
 */
import { StateflowError, diff, isJsonObject, isStateflowError } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import type { FieldDecl, GateAction, StepDecl, WritePolicy, WriteTarget } from './config-types.js';
import { extractJson, extractJsonBlock, notJsonReason, parseJsonText } from './extract-json.js';
import { isWriteAction } from './internal/catalog.js';
import type { Resolved, SourceEnv, SourceUse, StepOutputs } from './internal/resolve-source.js';
import { resolveSource } from './internal/resolve-source.js';
import { parseSource } from './internal/source-spec.js';
import type { ParsedSource } from './internal/source-spec.js';
import { Workspace } from './internal/workspace.js';
import type { Ladder } from './load-ladder.js';
import { isLoadedLadder, loadLadder } from './load-ladder.js';
import { checkRunOptions } from './internal/run-options.js';
import type { Model, ModelMessage, ModelRequest } from './model.js';
import { RETRIEVAL_BUDGET_MESSAGE, documentOf, selectFiles } from './retrieve.js';
import type { RetrievedDocument } from './retrieve.js';
import { renderValue } from './slate-read.js';
import { slateContents, toWorkingState } from './slate-state.js';
import type { SlateStreamState } from './slate-state.js';
import type { Evicted, Refused } from './slate-write.js';
import { loadTokenCounter } from './token-counter.js';
import type { TokenCounter } from './token-counter.js';
import { sessionSlateStream } from './sessions/session-record.js';
import type { AbortedAt } from './run-outcome.js';

/** Options of {@link runLadder}. */
export interface RunLadderOptions {
  store: Store;
  /** A loaded ladder, or config text (YAML/JSON) / a parsed config object to load. */
  ladder: Ladder | string | object;
  /** The call's input: a string is `{ context: <string> }`; text fields read `input.<key>`. */
  input: string | Record<string, JsonValue>;
  /**
   * Session id. Without one the call runs on fresh slates and publishes nothing
   * (seeds/ladr-stateful-sessions.txt "Without a session id ... assume they do not").
   */
  session?: string;
  /** Ladder id in the stream name `slate:<ladder>:<session>`. Default: the config's `name`. */
  ladderId?: string;
  model: Model;
  /** Tokenizer encoding for folder budgets. Default `o200k_base`. */
  encoding?: string;
  /** Clock for slate times. Default `() => new Date()`. */
  clock?: () => Date;
  /** Re-applications of the call's writes on a newer head after a CAS conflict. Default 3. */
  conflictRetries?: number;
}

/** What one step did. `survivors` are 0-based node indexes. */
export interface StepTrace {
  id: string;
  outputs: string[];
  survivors: number[];
  /** Retrieval rounds per node (fetches performed) and whether the budget was exhausted. */
  retrieval?: Array<{ fetches: number; exhausted: boolean; documents: string[] }>;
}

/** Result of {@link runLadder}. */
export interface LadderRunResult {
  /** The exit step's (else the last step's) survivors joined with a blank line; `null` if none ran or survived. */
  output: string | null;
  /** Global seq of the one transition holding the call's slate changes; `null` when nothing was published. */
  transition: number | null;
  /** The stream the call read and wrote (`slate:<ladder>:<session>`), `null` without a session. */
  stream: string | null;
  /** File contents after the call: `{ <title>: { <folder path>: { <file>: <contents> } } }`. */
  slates: Record<string, Record<string, Record<string, string>>>;
  evicted: Evicted[];
  refused: Refused[];
  /** Set when a gate action `abort` ended the run (see {@link runOutcome} for how transports show it). */
  aborted?: AbortedAt;
  /** Steps that did not run because a step they depend on had no survivors. */
  skipped: string[];
  steps: StepTrace[];
}

interface RunCtx {
  ladder: Ladder;
  model: Model;
  env: SourceEnv;
  count: TokenCounter;
}

const JOIN = '\n\n';

function joinTexts(r: Resolved): string {
  return 'texts' in r ? r.texts.join(JOIN) : renderValue(r.value);
}

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

async function runNode(
  ctx: RunCtx,
  step: StepDecl,
  node: number,
  previous: string | undefined,
): Promise<{ output: string; retrieval?: { fetches: number; exhausted: boolean; documents: string[] } }> {
  const fields = renderFields(ctx, step, node, previous);
  const user = fields.length > 0 ? fields.join(JOIN) : defaultUserContent(ctx, previous);
  const call = (round: number, extra: string[], exhausted: boolean): Promise<string> => {
    const messages: ModelMessage[] = [];
    if (step.systemPrompt !== undefined) messages.push({ role: 'system', content: step.systemPrompt });
    messages.push({ role: 'user', content: [user, ...extra].join(JOIN) });
    if (exhausted) messages.push({ role: 'user', content: RETRIEVAL_BUDGET_MESSAGE });
    return completion(ctx.model, { messages, step: step.id, node, round });
  };
  const r = step.retrieve;
  if (r === undefined) return { output: await call(1, [], false) };

  const check = ctx.ladder.checks.requestMatch.get(step.id);
  const docs: RetrievedDocument[] = [];
  const seen = new Set<string>();
  let fetches = 0;
  let exhausted = false;
  let output = await call(1, [], false);
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
    output = await call(fetches + 1, [`${r.as}:\n${JSON.stringify(docs)}`], exhausted);
  }
  return { output, retrieval: { fetches, exhausted, documents: docs.map((d) => d.path) } };
}

/**
 * The boundary to a caller-supplied model: whatever it throws that is not a StateflowError,
 * or a non-string answer, is `MODEL_FAILED` (with `cause`), naming the step.
 */
async function completion(model: Model, request: ModelRequest): Promise<string> {
  let output: unknown;
  try {
    output = await model.complete(request);
  } catch (err) {
    if (isStateflowError(err)) throw err;
    const text = err instanceof Error ? err.message : String(err);
    throw new StateflowError('MODEL_FAILED', `The model failed in step "${request.step}" (node ${request.node}): ${text}`, { step: request.step }, { cause: err });
  }
  if (typeof output !== 'string') {
    throw new StateflowError('MODEL_FAILED', `The model answered step "${request.step}" (node ${request.node}) with a ${output === null ? 'null' : typeof output}, not a string.`, { step: request.step });
  }
  return output;
}

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

/** The refusal of a write whose value never reached the slate. */
function refusal(to: WriteTarget, step: string, node: number, reason: string): Refused {
  return { slate: to.slate, folder: to.folder, file: to.file, ...(to.metatag === undefined ? {} : { metatag: to.metatag }), step, node, reason };
}

function gateMatches(ctx: RunCtx, step: StepDecl, output: string): boolean {
  const gate = step.if;
  if (gate === undefined) return true;
  if (gate.equals !== undefined) return output.trim() === gate.equals;
  const json = extractJson(output);
  const check = ctx.ladder.checks.jsonMatches.get(step.id);
  return json !== undefined && check !== undefined && check(json);
}

async function runSteps(ctx: RunCtx, result: LadderRunResult): Promise<void> {
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
    const nodes = step.nodes ?? 1;
    // The nodes' model calls run in parallel. Each node's first call is issued synchronously in
    // node order (runNode does not await before calling the model), so a scripted model consumes
    // its lines in node order; later retrieval rounds follow in the order answers arrive.
    const ran = await Promise.all(Array.from({ length: nodes }, (_, node) => runNode(ctx, step, node, previous)));
    const outputs = ran.map((r) => r.output);
    const retrieval = ran.flatMap((r) => (r.retrieval === undefined ? [] : [r.retrieval]));
    const survivors: number[] = [];
    for (let node = 0; node < nodes && result.aborted === undefined; node++) {
      const output = outputs[node] as string;
      const matched = gateMatches(ctx, step, output);
      const branch = matched ? 'then' : 'else';
      const action: GateAction | undefined = matched ? (step.if?.then ?? 'continue') : step.if?.else;
      if (action === 'abort') {
        result.aborted = { step: step.id, node, branch };
        break;
      }
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
    const trace: StepTrace = { id: step.id, outputs, survivors };
    if (retrieval.length > 0) trace.retrieval = retrieval;
    result.steps.push(trace);
    executed.set(step.id, { outputs, survivors });
    if (result.aborted !== undefined) return;
    const sw = step.slateWrite;
    const match = ctx.ladder.checks.match.get(step.id);
    if (sw !== undefined && match !== undefined) {
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
    if (step.id === config.exit) return;
  }
}

function finalOutput(ladder: Ladder, result: LadderRunResult): string | null {
  if (result.aborted !== undefined) return null;
  const id = ladder.config.exit ?? ladder.config.steps[ladder.config.steps.length - 1]?.id;
  const trace = result.steps.find((s) => s.id === id);
  if (trace === undefined || trace.survivors.length === 0) return null;
  return trace.survivors.map((i) => trace.outputs[i]).join(JOIN);
}

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
  let base: JsonObject = {};
  let baseRev = 0;
  if (stream !== null) {
    const view = await options.store.view([stream]);
    base = view.streams[stream]?.state ?? {};
    baseRev = view.streams[stream]?.rev ?? 0;
  }
  const writeCtx = { catalog: ladder.catalog, count, at };
  let workspace = new Workspace(writeCtx, ladder, toWorkingState(base));
  const input: Record<string, JsonValue> = typeof options.input === 'string' ? { context: options.input } : options.input;
  const ctx: RunCtx = { ladder, model: options.model, count, env: { executed: new Map(), input, workspace } };
  const result: LadderRunResult = { output: null, transition: null, stream, slates: {}, evicted: [], refused: [], skipped: [], steps: [] };
  await runSteps(ctx, result);
  result.output = finalOutput(ladder, result);

  // Read recency of LRU folders is state too (it decides what a later write evicts): a call that
  // only reads such files still publishes it, in its one transition.
  if (stream !== null && (workspace.writes > 0 || workspace.lruReads > 0)) {
    const retries = options.conflictRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const published = await options.store.publish({
          changes: { [stream]: diff(base, workspace.state as unknown as JsonObject) },
          expected: { [stream]: baseRev === 0 ? 'none' : baseRev },
          meta: { kind: 'ladder-call', ladder: options.ladderId ?? ladder.config.name, session: options.session as string },
        });
        result.transition = published.transition?.seq ?? null;
        break;
      } catch (err) {
        if (!isStateflowError(err, 'CONFLICT') || attempt >= retries) throw err;
        const view = await options.store.view([stream]);
        base = view.streams[stream]?.state ?? {};
        baseRev = view.streams[stream]?.rev ?? 0;
        workspace = workspace.replayOn(ladder, toWorkingState(base));
      }
    }
  }
  result.slates = slateContents(workspace.state as SlateStreamState);
  result.evicted = workspace.evicted;
  result.refused = workspace.refused;
  return result;
}

