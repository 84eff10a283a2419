/**
 * The one way a model is named outside code — `stateflow ladder run --model`, `stateflow serve
 * --model`, the server's `model` option (slates README "API"): `scripted:<file.jsonl>` (a
 * {@link scriptedModelFromFile} script) or `openai:<model>` (an {@link openAIModel} of that name,
 * on the endpoint `OPENAI_BASE_URL` / `OPENAI_API_KEY` name).
 */
import path from 'node:path';
import { StateflowError } from '@stateflow/core';
import type { Model } from './model.js';
import { openAIModel } from './openai-model.js';
import { scriptedModelFromFile } from './scripted-model.js';

/** A parsed model spec. */
export type ModelSpec = { kind: 'scripted'; file: string } | { kind: 'openai'; model: string };

/**
 * Parse `scripted:<file.jsonl>` or `openai:<model>` (everything after the first `:` is the file
 * or the model name, which must not be empty).
 * @throws USAGE `{ model: spec }` for anything else, saying which forms there are.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  const kind = spec.slice(0, colon);
  const value = spec.slice(colon + 1);
  if (colon > 0 && value !== '') {
    if (kind === 'scripted') return { kind, file: value };
    if (kind === 'openai') return { kind, model: value };
  }
  throw new StateflowError('USAGE', `--model ${JSON.stringify(spec)} is not a model: use scripted:<file.jsonl> or openai:<model name>.`, {
    model: spec,
  });
}

/** Options of {@link modelFromSpec}. */
export interface ModelFromSpecOptions {
  /** Directory a relative script file is read from. Default `process.cwd()`. */
  cwd?: string;
  /** Environment an OpenAI model reads `OPENAI_BASE_URL` / `OPENAI_API_KEY` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * The model `spec` names (a string is parsed with {@link parseModelSpec} first).
 * @throws USAGE for a spec of another form; NOT_FOUND / INPUT_INVALID for an unreadable or
 *   malformed script.
 */
export async function modelFromSpec(spec: ModelSpec | string, options: ModelFromSpecOptions = {}): Promise<Model> {
  const parsed = typeof spec === 'string' ? parseModelSpec(spec) : spec;
  if (parsed.kind === 'scripted') return scriptedModelFromFile(path.resolve(options.cwd ?? process.cwd(), parsed.file));
  return openAIModel({ model: parsed.model, ...(options.env === undefined ? {} : { env: options.env }) });
}
