/**
 * Which Stateflow stream holds which LangGraph checkpoint chain (README "The stored layout").
 *
 * One stream per thread and checkpoint namespace: `langgraph:<thread_id>` for the root
 * namespace (`""`) and `langgraph:<thread_id>/<checkpoint_ns>` for a subgraph's. `%`, `/` and
 * control characters in either part are percent-encoded (`%25`, `%2F`, `%0A`), so the split is
 * unambiguous and every id is a valid stream id; other characters (`:` and `|` of subgraph
 * namespaces included) stay readable.
 */
import { StateflowError } from '@stateflow/core';
import type { StreamId } from '@stateflow/store';
import { isWellFormed } from './json-mapping.js';

/** Prefix of every checkpoint stream this package writes. */
const STREAM_PREFIX = 'langgraph:';

/**
 * Prefix of each namespace's index stream (`internal/checkpoint-pointers.ts`): the same thread
 * and namespace parts after it, so `langgraph-index:<thread>` indexes `langgraph:<thread>`. It
 * never parses as a checkpoint stream, nor belongs to a thread's checkpoint streams.
 */
const INDEX_PREFIX = 'langgraph-index:';

/** The store's limit on a stream id, in UTF-8 bytes. */
const MAX_STREAM_BYTES = 1024;

/** A thread and checkpoint namespace: one checkpoint chain. */
export interface NamespaceRef {
  threadId: string;
  checkpointNs: string;
  stream: StreamId;
}

function encodePart(text: string): string {
  return text.replace(/[%/\u0000-\u001f\u007f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

function decodePart(text: string): string {
  return text.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The stream id of all checkpoints of `threadId` in the root namespace. */
export function threadStream(threadId: string): StreamId {
  return `${STREAM_PREFIX}${encodePart(threadId)}`;
}

/**
 * The checkpoint chain of one thread and namespace.
 * @throws StateflowError `INPUT_INVALID` `{ field, reason }` when the thread id is empty, either
 *   part is not well-formed Unicode, or its index stream's id would exceed the store's 1,024
 *   bytes (thread and namespace parts together over 1,008 bytes, encoded).
 */
export function namespaceRef(threadId: string, checkpointNs: string): NamespaceRef {
  if (threadId === '') throw invalid('thread_id', 'empty', 'thread_id must not be empty');
  if (!isWellFormed(threadId)) throw invalid('thread_id', 'lone-surrogate', 'thread_id is not well-formed Unicode (lone surrogate)');
  if (!isWellFormed(checkpointNs)) throw invalid('checkpoint_ns', 'lone-surrogate', 'checkpoint_ns is not well-formed Unicode (lone surrogate)');
  const stream = checkpointNs === '' ? threadStream(threadId) : `${threadStream(threadId)}/${encodePart(checkpointNs)}`;
  // The index stream's id is the longer one (its prefix is), and it must be a valid id too.
  if (Buffer.byteLength(indexStreamOf(stream)) > MAX_STREAM_BYTES) {
    throw invalid('thread_id', 'too-long', `thread_id and checkpoint_ns together make a stream id of more than ${MAX_STREAM_BYTES - INDEX_PREFIX.length} bytes; use a shorter thread id`);
  }
  return { threadId, checkpointNs, stream };
}

/** The thread and namespace of a stream this package writes, or `null` for any other stream. */
export function parseStream(stream: StreamId): NamespaceRef | null {
  if (!stream.startsWith(STREAM_PREFIX)) return null;
  const rest = stream.slice(STREAM_PREFIX.length);
  const slash = rest.indexOf('/');
  const threadId = decodePart(slash < 0 ? rest : rest.slice(0, slash));
  const checkpointNs = slash < 0 ? '' : decodePart(rest.slice(slash + 1));
  return threadId === '' ? null : { threadId, checkpointNs, stream };
}

/** The index stream of the checkpoint stream `stream` (a stream {@link namespaceRef} made). */
export function indexStreamOf(stream: StreamId): StreamId {
  return `${INDEX_PREFIX}${stream.slice(STREAM_PREFIX.length)}`;
}

/** Whether `stream` holds a namespace of the thread whose root stream is `root`. */
export function belongsToThread(stream: StreamId, root: StreamId): boolean {
  return stream === root || (stream.startsWith(root) && stream.charCodeAt(root.length) === 0x2f /* / */);
}

function invalid(field: string, reason: string, message: string): StateflowError<'INPUT_INVALID'> {
  return new StateflowError('INPUT_INVALID', message, { field, reason });
}
