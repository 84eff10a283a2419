/**
 * What a LangGraph config names, checked (README "Other decisions"): the namespace (thread and
 * checkpoint namespace) and the ids a saver call is given. Bad input is `INPUT_INVALID`
 * `{ field, reason }` before anything is read or written.
 */
import { StateflowError } from '@stateflow/core';
import type { RunnableConfig } from '@langchain/core/runnables';
import { isWellFormed } from './json-mapping.js';
import { namespaceRef } from './stream-names.js';
import type { NamespaceRef } from './stream-names.js';

/** `config.configurable` as a record (`{}` when absent or not an object). */
export function configurable(config: RunnableConfig | undefined): Record<string, unknown> {
  const c = config?.configurable;
  return typeof c === 'object' && c !== null ? (c as Record<string, unknown>) : {};
}

/** The namespace a config names, or `undefined` without a `thread_id` (reads return nothing). */
export function optionalRef(config: RunnableConfig): NamespaceRef | undefined {
  const threadId = configurable(config)['thread_id'];
  if (threadId === undefined || threadId === null) return undefined;
  return namespaceRef(threadIdText(threadId), namespaceText(configurable(config)['checkpoint_ns']));
}

/** The namespace a writing config names. @throws `INPUT_INVALID` `{ field: 'thread_id' }` */
export function requiredRef(config: RunnableConfig, method: string): NamespaceRef {
  const ref = optionalRef(config);
  if (ref === undefined) {
    throw new StateflowError(
      'INPUT_INVALID',
      `${method} needs config.configurable.thread_id: pass { configurable: { thread_id: "…" } } when invoking the graph`,
      { field: 'thread_id', reason: 'missing' },
    );
  }
  return ref;
}

/** A thread id as text: a string, or a finite number (`1` is thread `"1"`). @throws `INPUT_INVALID` */
export function threadIdText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new StateflowError('INPUT_INVALID', `thread_id must be a string, got ${typeof value}`, { field: 'thread_id', reason: 'not-string' });
}

/** A checkpoint namespace as text (`""` when absent). @throws `INPUT_INVALID` */
export function namespaceText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  throw new StateflowError('INPUT_INVALID', `checkpoint_ns must be a string, got ${typeof value}`, { field: 'checkpoint_ns', reason: 'not-string' });
}

/** A non-empty, well-formed id. @throws `INPUT_INVALID` `{ field, reason }` */
export function identifier(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new StateflowError('INPUT_INVALID', `${field} must be a non-empty string, got ${value === '' ? 'an empty string' : typeof value}`, { field, reason: 'missing' });
  }
  if (!isWellFormed(value)) throw new StateflowError('INPUT_INVALID', `${field} is not well-formed Unicode (lone surrogate)`, { field, reason: 'lone-surrogate' });
  return value;
}
