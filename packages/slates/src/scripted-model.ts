/**
 * A model that replays recorded outputs, for tests and demos (slates README "API": JSON Lines, one
 * `{"content": "<model output>"}` per model call, consumed in call order).
 */
import { readFile } from 'node:fs/promises';
import { StateflowError } from '@stateflow/core';
import type { Model, ModelRequest } from './model.js';

/** A scripted model with the requests it received (for assertions). */
export interface ScriptedModel extends Model {
  /** Every request received so far, in call order. */
  readonly requests: ModelRequest[];
  /** Outputs not yet consumed. */
  remaining(): number;
}

/**
 * A scripted model over a list of outputs.
 * @throws (from `complete`) MODEL_FAILED when a call arrives after the last output
 */
export function scriptedModel(outputs: readonly string[], origin = 'script'): ScriptedModel {
  const requests: ModelRequest[] = [];
  let next = 0;
  return {
    requests,
    remaining: () => outputs.length - next,
    complete(request) {
      requests.push(request);
      const output = outputs[next];
      if (output === undefined) {
        return Promise.reject(
          new StateflowError(
            'MODEL_FAILED',
            `Scripted model ${origin} has ${outputs.length} outputs but call ${next + 1} arrived (step "${request.step}", node ${request.node}, round ${request.round})`,
            { origin, calls: next + 1 },
          ),
        );
      }
      next += 1;
      return Promise.resolve(output);
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
