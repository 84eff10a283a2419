/**
 * The ladder runner's observation hook (README "Observing a run"): told after each step that
 * ran, with the step id and its time. `stateflow serve` feeds its step-duration metric with it.
 * A hook runs synchronously on the runner's path and must not throw (what it throws is ignored).
 * Each step also runs in an OpenTelemetry span `ladder.step` (`@opentelemetry/api`; a no-op
 * unless the application registered an SDK), the parent of its model calls' spans.
 */

/** One step that ran (skipped steps are not told). */
export interface StepObservation {
  /** The step's `id` in the ladder config. */
  step: string;
  /** Its nodes (parallel model calls). */
  nodes: number;
  /** Time from the step's start to its slate writes' end, in ms (`performance.now()`). */
  ms: number;
}

/** Hooks of {@link RunLadderOptions.observer}. */
export interface LadderObserver {
  step?(observation: StepObservation): void;
}
