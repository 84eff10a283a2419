/**
 * Runtime resolution of the unified source vocabulary (seeds/ladr-reads-and-writes.txt
 * "from: resolution rules (checked at runtime, not config time)").
 */
import { StateflowError } from '@stateflow/core';
import type { JsonValue } from '@stateflow/core';
import type { ParsedSource } from './source-spec.js';
import type { Workspace } from './workspace.js';

/** Outputs of an executed step: every node's output and the indexes of its survivors. */
export interface StepOutputs {
  outputs: string[];
  survivors: number[];
}

/**
 * A resolved source: texts (several when the source is a group of survivors) or a typed slate
 * value; `null` value when a slate metatag has no value yet (the write is then a no-op).
 */
export type Resolved = { texts: string[]; multi: boolean } | { value: JsonValue };

/** Where a source is used, for error messages and per-node routing. */
export interface SourceUse {
  /** `Step "x": gated write (then)` or `Step "x": text field "F"`. */
  who: string;
  /** Id of the step immediately before the current one in config order (if any). */
  previousStep: string | undefined;
  node: number;
  /** The current node's own output (gates only). */
  output?: string;
}

export interface SourceEnv {
  executed: ReadonlyMap<string, StepOutputs>;
  input: Record<string, JsonValue>;
  workspace: Workspace;
}

function unresolved(use: SourceUse, what: string): StateflowError {
  return new StateflowError('SOURCE_UNRESOLVED', `${use.who} ${what}`, { who: use.who });
}

function survivorsOf(env: SourceEnv, use: SourceUse, stepId: string, label: string): StepOutputs {
  const run = env.executed.get(stepId);
  if (run === undefined) throw unresolved(use, `from: ${label} requires step "${stepId}" to have executed in the current loop`);
  return run;
}

function oneNode(use: SourceUse, run: StepOutputs, stepId: string, node: number, label: string): string {
  if (!run.survivors.includes(node)) {
    throw unresolved(use, `from: ${label} needs node ${node} of step "${stepId}", which is not a survivor`);
  }
  return run.outputs[node] as string;
}

/**
 * Resolve a parsed source for one node.
 * @throws SOURCE_UNRESOLVED naming the step and the branch or field when the source cannot be resolved
 */
export function resolveSource(env: SourceEnv, use: SourceUse, source: ParsedSource): Resolved {
  switch (source.kind) {
    case 'literal':
      return { texts: [source.text], multi: false };
    case 'output':
      if (use.output === undefined) throw unresolved(use, 'from: output is only available after the step ran');
      return { texts: [use.output], multi: false };
    case 'input': {
      const value = env.input[source.key];
      if (value === undefined) throw unresolved(use, `from: input.${source.key} is not in the call's input`);
      return { texts: [typeof value === 'string' ? value : JSON.stringify(value)], multi: false };
    }
    case 'previous': {
      if (use.previousStep === undefined) throw unresolved(use, 'from: previous requires a prior step to have executed');
      const run = survivorsOf(env, use, use.previousStep, 'previous');
      return { texts: run.survivors.map((i) => run.outputs[i] as string), multi: true };
    }
    case 'step': {
      const label = `{ stepId: "${source.stepId}" }`;
      const run = survivorsOf(env, use, source.stepId, label);
      if (source.node !== undefined) return { texts: [oneNode(use, run, source.stepId, source.node, label)], multi: false };
      if (source.nodeRef === 'current') return { texts: [oneNode(use, run, source.stepId, use.node, label)], multi: false };
      if (source.nodeRef === 'previous') {
        if (use.node === 0) throw unresolved(use, `from: ${label} with nodeRef: previous has no node before node 0`);
        return { texts: [oneNode(use, run, source.stepId, use.node - 1, label)], multi: false };
      }
      return { texts: run.survivors.map((i) => run.outputs[i] as string), multi: true };
    }
    case 'slate': {
      const value = env.workspace.read(source.ref);
      return typeof value === 'string' ? { texts: [value], multi: false } : { value };
    }
  }
}
