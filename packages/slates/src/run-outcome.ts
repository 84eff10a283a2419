/**
 * How a ladder run ended, in one shape every transport shows the same way (HTTP
 * chat/completions, streamed or not, and `stateflow ladder run`): it completed with an output,
 * or a gate's `abort` ended it (DESIGN.md "Gates": "`abort` ends the run with a clear result").
 * An aborted run must never look like a completed one with an empty answer.
 */
import type { AbortedAt, LadderRunResult } from './run-ladder-types.js';

/** The end of a run: its output, or where it was aborted and a sentence saying so. */
export type RunOutcome =
  | { kind: 'completed'; output: string | null }
  | { kind: 'aborted'; aborted: AbortedAt; message: string };

/**
 * The outcome of `result`. `message` of an aborted run names the step, node and branch, e.g.
 * `The ladder aborted at step "check" (node 0): its gate did not match and its else is abort.`
 */
export function runOutcome(result: Pick<LadderRunResult, 'output' | 'aborted'>): RunOutcome {
  if (result.aborted === undefined) return { kind: 'completed', output: result.output };
  const { step, node, branch } = result.aborted;
  const why = branch === 'then' ? 'its gate matched and its then is abort' : 'its gate did not match and its else is abort';
  return { kind: 'aborted', aborted: { step, node, branch }, message: `The ladder aborted at step "${step}" (node ${node}): ${why}.` };
}
