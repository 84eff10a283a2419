/**
 * The public shapes of one ladder call: what {@link runLadder} takes and what it returns
 * (seed ladr-reads-and-writes; DESIGN.md "Ladder slates as a projection").
 */
import type { LadderObserver } from './ladder-observer.js';
import type { JsonValue } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import type { Ladder } from './load-ladder.js';
import type { Model, TokenUsage } from './model.js';
import type { Evicted, Refused } from './slate-write.js';

/** Where a gate action `abort` ended a run. */
export interface AbortedAt {
  /** The step whose gate aborted. */
  step: string;
  /** 0-based node of that step whose output the gate judged. */
  node: number;
  /** The gate branch holding the `abort`: `then` (the gate matched) or `else` (it did not). */
  branch: 'then' | 'else';
}

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
  /**
   * Streams the call's output: receives `output`'s text in order as it is produced, so the pieces
   * join to `result.output` (nothing when it is `null`). The exit step's model tokens are
   * forwarded as they arrive when it has no gate and no `retrieve` (its nodes in output order:
   * node 0 live, each later node once the ones before it finished); with a gate, its survivors
   * once the gates have decided; with `retrieve`, each node's final answer once it is known.
   * Earlier steps never stream. Must not throw.
   */
  onOutput?: (text: string) => void;
  /** Told after each step that ran (`ladder-observer.ts`); default none. */
  observer?: LadderObserver;
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
  /**
   * Token usage summed over every model call of the run (every step, node and retrieval round);
   * `null` when any call's usage is unknown (a model that does not report it), never a partial sum.
   */
  usage: TokenUsage | null;
  /** Steps that did not run because a step they depend on had no survivors. */
  skipped: string[];
  steps: StepTrace[];
}
