/**
 * Input validation of `Store.undo` (validate first, then touch storage): every field read once
 * into a normalised copy. The resolutions' contents are core's to check (`threeWayMerge`), once
 * the conflicts are known; which streams they may name, the undo's.
 */
import { StateflowError, checkWriterMatch, describeInput, isJsonObject, isTagName } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { UndoInput, UndoSince } from '../types.js';
import { checkCount, checkExpected, checkSettlement, checkStream, checkStreams, jsonObjectCopy } from './validate.js';

/**
 * Check an undo input and return the normalised copy.
 * @throws INPUT_INVALID (not an object; `writer`, `since`, `streams`, `expected`, `resolve`,
 *   `prefer`, `dryRun`, `id`, a `meta` that is not or that holds `undo`), STREAM_INVALID
 */
export function checkUndoInput(input: unknown): UndoInput {
  if (!isJsonObject(input)) throw invalid('input', `undo input must be an object, got ${describeInput(input)}`);
  const { writer, since, streams, expected, resolve, prefer, dryRun, id, principal, meta } = input as unknown as Record<string, unknown>;
  const checked: UndoInput = { writer: checkWriterMatch(writer), since: checkSince(since) };
  if (streams !== undefined) {
    checkStreams(streams);
    if (streams.length === 0) throw invalid('streams', 'streams must name at least one stream when given (leave it out to undo on every stream)');
    checked.streams = [...new Set(streams)];
  }
  if (expected !== undefined) {
    if (!isJsonObject(expected)) throw invalid('expected', 'expected must be an object of revisions by stream');
    for (const [stream, rev] of Object.entries(expected)) {
      checkStream(stream);
      checkExpected(`expected.${stream}`, rev);
    }
    checked.expected = jsonObjectCopy(expected, 'expected') as UndoInput['expected'];
  }
  if (resolve !== undefined) {
    const copy = jsonObjectCopy(resolve, 'resolve');
    for (const [stream, paths] of Object.entries(copy)) {
      checkStream(stream);
      if (!isJsonObject(paths)) throw invalid('resolve', `resolve.${stream} must be an object of resolutions by path`);
    }
    checked.resolve = copy as UndoInput['resolve'];
  }
  checkSettlement({ prefer, dryRun, id, principal }, checked);
  if (meta !== undefined) checked.meta = callerMeta(jsonObjectCopy(meta, 'meta'));
  return checked;
}

/** `since` as one of its forms. */
function checkSince(since: unknown): UndoSince {
  if (typeof since === 'number') {
    checkCount(since, 'since');
    return since;
  }
  const keys = isJsonObject(since) ? Object.keys(since) : [];
  if (!isJsonObject(since) || keys.length !== 1) throw invalid('since', `since must be a seq, { seq }, { time } or { tag }, got ${describeInput(since)}`);
  if ('seq' in since) {
    checkCount(since.seq, 'since.seq');
    return { seq: since.seq };
  }
  if ('time' in since) {
    const time = since.time;
    if (typeof time !== 'string' || Number.isNaN(Date.parse(time))) throw invalid('since.time', `since.time must be an ISO 8601 time, got ${describeInput(time)}`);
    return { time: new Date(time).toISOString() };
  }
  if ('tag' in since) {
    if (typeof since.tag !== 'string' || !isTagName(since.tag)) throw invalid('since.tag', `since.tag must be a tag name ([A-Za-z][A-Za-z0-9_.-]*), got ${describeInput(since.tag)}`);
    return { tag: since.tag };
  }
  return invalid('since', `since must be a seq, { seq }, { time } or { tag }, got an object with ${keys[0]}`);
}

function callerMeta(meta: JsonObject): JsonObject {
  if (Object.hasOwn(meta, 'undo')) {
    throw new StateflowError('INPUT_INVALID', 'meta.undo is written by the store (the undo records what it undid); put your metadata under another key', { field: 'meta.undo', reason: 'reserved' });
  }
  return meta;
}

function invalid(field: string, message: string): never {
  throw new StateflowError('INPUT_INVALID', message, { field });
}
