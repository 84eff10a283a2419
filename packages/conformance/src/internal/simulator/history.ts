/**
 * The history of a simulation, Jepsen's way: every operation a writer invoked, in the order of
 * a logical clock that ticks at each invocation and each completion (so "completed before
 * invoked" is real-time order across writers and processes), with what the writer learnt —
 * `ok` (the answer), `fail` (a typed refusal after which nothing may have changed), or
 * `unknown` (an error that leaves the outcome open, or no answer because the process died).
 */
import type { ErrorCode, JsonObject } from '@stateflow/core';
import type { Durability, ExpectedRevision, MergeResult, PublishResult } from '@stateflow/store';

/** One publish input as the writer sent it; `marker` (in `meta.sim`) names it in the log. */
export interface PublishSpec {
  marker: string;
  changes: Record<string, JsonObject>;
  expected: Record<string, ExpectedRevision>;
  id?: string;
  durability: Durability;
}

/** An operation a writer runs. */
export type OpSpec =
  | { kind: 'publish'; input: PublishSpec; expectHead: string | null }
  | { kind: 'publishMany'; inputs: PublishSpec[] }
  | { kind: 'fork'; from: string; to: string; at?: number; expected: ExpectedRevision; id: string }
  | { kind: 'merge'; from: string; into: string; prefer: 'ours' | 'theirs'; id?: string; marker: string }
  | { kind: 'revert'; stream: string; rev: number }
  | { kind: 'compact'; stream: string; keep: number }
  | { kind: 'state'; stream: string }
  | { kind: 'stateAt'; stream: string; rev: number }
  | { kind: 'audit' };

/** What an operation answered, for the kinds the checks read. */
export type OkValue =
  | { kind: 'publish'; results: PublishResult[] }
  | { kind: 'merge'; result: MergeResult }
  | { kind: 'compact'; origin: number }
  | { kind: 'state'; state: JsonObject }
  | { kind: 'audit'; problems: number };

/** What the writer learnt. */
export type Outcome =
  | { kind: 'ok'; value: OkValue }
  | { kind: 'fail'; code: ErrorCode }
  | { kind: 'unknown'; why: string };

/** One operation of the history. */
export interface OpRecord {
  /** `<process>.<writer>.<n>`, unique. */
  label: string;
  spec: OpSpec;
  /** The power-loss epoch its process incarnation lived in. */
  epoch: number;
  invoked: number;
  completed: number;
  outcome: Outcome;
}
