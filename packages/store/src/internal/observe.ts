/**
 * Observing the store (README "Observing a store"): the {@link StoreObserver} hooks and the
 * OpenTelemetry spans (`@opentelemetry/api` only: without an SDK registered by the application,
 * every span is a no-op) around publishes, storage commits and reads. One module, so the store's
 * methods carry one call each instead of timing code.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';
import { isStateflowError } from '@stateflow/core';
import type { Durability, PublishResult } from '../types.js';
import type { PublishOutcome, ReadKind, StoreObserver } from '../store-observer.js';

const tracer = trace.getTracer('@stateflow/store');

/** Run `fn` in an active span `name` (ended when it settles; an exception is recorded). */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: isStateflowError(err) ? err.code : 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Call `hook` of `observer`, ignoring what it throws (an observer never fails the store). */
function tell<K extends keyof StoreObserver>(observer: StoreObserver | null, hook: K, observation: Parameters<NonNullable<StoreObserver[K]>>[0]): void {
  const fn = observer?.[hook] as ((o: typeof observation) => void) | undefined;
  if (fn === undefined) return;
  try {
    fn.call(observer, observation);
  } catch {
    // An observer's failure is its own.
  }
}

/** The outcome of a failed publish. */
function failure(err: unknown): PublishOutcome {
  return isStateflowError(err, 'CONFLICT') ? 'conflict' : 'error';
}

/**
 * Publish `inputs` through `fn` in a `stateflow.publish` span, and tell the observer each
 * input's outcome (a failure fails every input of the call).
 */
export async function observedPublish(observer: StoreObserver | null, durability: Durability, inputs: number, fn: () => Promise<PublishResult[]>): Promise<PublishResult[]> {
  const start = performance.now();
  return inSpan('stateflow.publish', { 'stateflow.durability': durability, 'stateflow.publish.inputs': inputs }, async (span) => {
    try {
      const results = await fn();
      const ms = performance.now() - start;
      for (const result of results) tell(observer, 'published', { durability, outcome: result.status, ms });
      if (results.length === 1) span.setAttribute('stateflow.publish.outcome', results[0]?.status ?? 'noop');
      return results;
    } catch (err) {
      const ms = performance.now() - start;
      for (let i = 0; i < inputs; i++) tell(observer, 'published', { durability, outcome: failure(err), ms });
      span.setAttribute('stateflow.publish.outcome', failure(err));
      throw err;
    }
  });
}

/** Write one storage batch through `write` in a `stateflow.commit` span, and tell the observer. */
export async function observedCommit(observer: StoreObserver | null, batch: { transitions: number; bytes: number; synced: boolean }, write: () => Promise<void>): Promise<void> {
  const start = performance.now();
  await inSpan('stateflow.commit', { 'stateflow.commit.transitions': batch.transitions, 'stateflow.commit.bytes': batch.bytes, 'stateflow.commit.synced': batch.synced }, write);
  tell(observer, 'committed', { ...batch, ms: performance.now() - start });
}

/** Run the read `fn` in a `stateflow.read` span, and tell the observer. */
export async function observedRead<T>(observer: StoreObserver | null, kind: ReadKind, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    const value = await inSpan('stateflow.read', { 'stateflow.read.kind': kind }, fn);
    tell(observer, 'read', { kind, outcome: 'ok', ms: performance.now() - start });
    return value;
  } catch (err) {
    tell(observer, 'read', { kind, outcome: 'error', ms: performance.now() - start });
    throw err;
  }
}

/** Tell the observer how a `transitions` iteration ended (it has no span: a generator outlives its caller's context). */
export function observedIteration(observer: StoreObserver | null, start: number, outcome: 'ok' | 'error'): void {
  tell(observer, 'read', { kind: 'transitions', outcome, ms: performance.now() - start });
}
