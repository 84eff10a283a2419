/**
 * Observing the store (README "Observing a store"): the {@link StoreObserver} hooks and the
 * OpenTelemetry spans (`@opentelemetry/api` only: without an SDK registered by the application,
 * every span is a no-op) around publishes, storage commits and reads. One module, so the store's
 * methods carry one call each instead of timing code.
 */
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';
import { isStateflowError } from '@stateflow/core';
import type { Durability, PublishResult } from '../types.js';
import type { PublishOutcome, ReadKind, StoreObserver } from '../store-observer.js';

const tracer = trace.getTracer('@stateflow/store');

/**
 * Run `fn` in `span` made active (ended when it settles; an exception is recorded). Only for a
 * recording span: a no-op span is ended and skipped by the callers (see {@link quiet}).
 */
async function inSpan<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), fn);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: isStateflowError(err) ? err.code : 'error' });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A new span `name`; `null` (the span already ended) when it does not record — no SDK
 * registered, or not sampled. With no observer either, the callers then run the work as it is:
 * not one promise job more than without observation, so the store's timing is the same.
 */
function recording(name: string, attributes: Attributes): Span | null {
  const span = tracer.startSpan(name, { attributes });
  if (span.isRecording()) return span;
  span.end();
  return null;
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
export function observedPublish(observer: StoreObserver | null, durability: Durability, inputs: number, fn: () => Promise<PublishResult[]>): Promise<PublishResult[]> {
  const span = recording('stateflow.publish', { 'stateflow.durability': durability, 'stateflow.publish.inputs': inputs });
  if (observer === null && span === null) return fn();
  const start = performance.now();
  // The span's outcome is set before inSpan ends it.
  const traced = (): Promise<PublishResult[]> =>
    fn().then(
      (results) => {
        if (results.length === 1) span?.setAttribute('stateflow.publish.outcome', results[0]?.status ?? 'noop');
        return results;
      },
      (err: unknown) => {
        span?.setAttribute('stateflow.publish.outcome', failure(err));
        throw err;
      },
    );
  const published = span === null ? fn() : inSpan(span, traced);
  return published.then(
    (results) => {
      const ms = performance.now() - start;
      for (const result of results) tell(observer, 'published', { durability, outcome: result.status, ms });
      return results;
    },
    (err: unknown) => {
      const ms = performance.now() - start;
      for (let i = 0; i < inputs; i++) tell(observer, 'published', { durability, outcome: failure(err), ms });
      throw err;
    },
  );
}

/** Write one storage batch through `write` in a `stateflow.commit` span, and tell the observer. */
export function observedCommit(observer: StoreObserver | null, batch: { transitions: number; bytes: number; synced: boolean }, write: () => Promise<void>): Promise<void> {
  const span = recording('stateflow.commit', { 'stateflow.commit.transitions': batch.transitions, 'stateflow.commit.bytes': batch.bytes, 'stateflow.commit.synced': batch.synced });
  if (observer === null && span === null) return write();
  const start = performance.now();
  const written = span === null ? write() : inSpan(span, write);
  return written.then(() => tell(observer, 'committed', { ...batch, ms: performance.now() - start }));
}

/** Run the read `fn` in a `stateflow.read` span, and tell the observer. */
export function observedRead<T>(observer: StoreObserver | null, kind: ReadKind, fn: () => Promise<T>): Promise<T> {
  const span = recording('stateflow.read', { 'stateflow.read.kind': kind });
  if (observer === null && span === null) return fn();
  const start = performance.now();
  const read = span === null ? fn() : inSpan(span, fn);
  return read.then(
    (value) => {
      tell(observer, 'read', { kind, outcome: 'ok', ms: performance.now() - start });
      return value;
    },
    (err: unknown) => {
      tell(observer, 'read', { kind, outcome: 'error', ms: performance.now() - start });
      throw err;
    },
  );
}

/** Tell the observer how a `transitions` iteration ended (it has no span: a generator outlives its caller's context). */
export function observedIteration(observer: StoreObserver | null, start: number, outcome: 'ok' | 'error'): void {
  if (observer === null) return;
  tell(observer, 'read', { kind: 'transitions', outcome, ms: performance.now() - start });
}
