/**
 * What the steps, nodes and gates of one ladder call share: the loaded ladder, the model, the
 * resolution environment (input, earlier steps' outputs, the call's workspace), the token
 * counter, the running usage and the output stream.
 */
import type { LadderObserver } from '../ladder-observer.js';
import type { Ladder } from '../load-ladder.js';
import type { Model, TokenUsage } from '../model.js';
import type { TokenCounter } from '../token-counter.js';
import type { SourceEnv } from './resolve-source.js';

/** The state of one call, shared by its steps. */
export interface RunCtx {
  ladder: Ladder;
  model: Model;
  env: SourceEnv;
  count: TokenCounter;
  /** Running sum of the calls' usage; `null` once one call's usage was unknown. */
  usage: TokenUsage | null;
  onOutput: ((text: string) => void) | undefined;
  /** The ladder's id (its slate stream's), for the step spans and the observer. */
  ladderId: string;
  observer: LadderObserver | undefined;
}

/** What joins several texts (node outputs, resolved sources): one blank line. */
export const JOIN = '\n\n';
