/**
 * A model that replays recorded outputs, for tests and demos (slates README "API": JSON Lines, one
 * `{"content": "<model output>"}` per model call, consumed in call order). It reports token usage
 * counted with the runner's tokenizer and, when the caller streams, gives each output word by word.
 */
import { readFile } from 'node:fs/promises';
import { StateflowError } from '@stateflow/core';
import type { CompleteOptions, Model, ModelCompletion, ModelRequest } from './model.js';
import { loadTokenCounter } from './token-counter.js';

/** A scripted model with the requests it received (for assertions). */
export interface ScriptedModel extends Model {
  /** Every request received so far, in call order. */
  readonly requests: ModelRequest[];
  /** Outputs not yet consumed. */
  remaining(): number;
  complete(request: ModelRequest, options?: CompleteOptions): Promise<ModelCompletion>;
}

/** The pieces a streamed scripted output is given in: each run of non-space with the spaces before it. */
const PIECE = /\s*\S+|\s+$/g;

/**
 * A scripted model over a list of outputs. Usage counts tokens with `encoding` (default
 * `o200k_base`, the runner's default): `promptTokens` is the sum over the request's messages of
 * their text's tokens (chat framing tokens are not counted), `completionTokens` the output's.
 * @throws (from `complete`) MODEL_FAILED when a call arrives after the last output
 */
export function scriptedModel(outputs: readonly string[], origin = 'script', encoding = 'o200k_base'): ScriptedModel {
  const requests: ModelRequest[] = [];
  let next = 0;
  return {
    requests,
    remaining: () => outputs.length - next,
    async complete(request, options) {
      requests.push(request);
      const output = outputs[next];
      if (output === undefined) {
        throw new StateflowError(
          'MODEL_FAILED',
          `Scripted model ${origin} has ${outputs.length} outputs but call ${next + 1} arrived (step "${request.step}", node ${request.node}, round ${request.round}): add lines to the script, or restart to replay it from its first line`,
          { origin, calls: next + 1 },
        );
      }
      next += 1;
      const count = await loadTokenCounter(encoding);
      if (options?.onDelta !== undefined) for (const piece of output.match(PIECE) ?? []) options.onDelta(piece);
      const promptTokens = request.messages.reduce((sum, message) => sum + count(message.content), 0);
      const completionTokens = count(output);
      return { content: output, usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens } };
    },
  };
}

/**
 * Parse JSON Lines of `{"content": "..."}` (blank lines ignored).
 * @throws INPUT_INVALID naming the line when a line is not such an object
 */
export function parseScript(text: string, origin = 'script'): string[] {
  const outputs: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const content = (value as { content?: unknown } | undefined)?.content;
    if (typeof value !== 'object' || value === null || typeof content !== 'string') {
      throw new StateflowError('INPUT_INVALID', `${origin} line ${i + 1}: expected {"content": "<model output>"}`, {
        field: `line ${i + 1}`,
        reason: 'not a {"content": string} object',
      });
    }
    outputs.push(content);
  });
  return outputs;
}

/**
 * A scripted model replaying a JSONL file.
 * @throws NOT_FOUND when the file cannot be read; INPUT_INVALID for a bad line
 */
export async function scriptedModelFromFile(file: string): Promise<ScriptedModel> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new StateflowError('NOT_FOUND', `Cannot read scripted model file "${file}": ${(err as Error).message}`, { file }, { cause: err });
  }
  return scriptedModel(parseScript(text, file), file);
}
