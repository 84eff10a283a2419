/**
 * The archive records (README "Retention": archives): the state of `stateflow:archives` is one
 * object, an archive's name → `{ digest, bytes, streams: { <stream>: { from, to } }, seqs: { from,
 * to }, transitions }` — the sha256 of the archive file, its size, the revisions of each stream
 * it holds and the seqs of the transitions in it. A record is in the hash chain, so the digest
 * binds the file to the store's history. This module owns its rules and reading the records.
 */
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import type { StreamId } from '../types.js';

/** A range of revisions or seqs, both ends inclusive. */
export type ArchiveRange = {
  from: number;
  to: number;
};

/** What the store records of one archive. */
// A type, not an interface, so a record is a JsonObject as it is stored.
export type ArchiveRecord = {
  /** sha256 of the archive file, 64 lowercase hex. */
  digest: string;
  /** Size of the file in bytes. */
  bytes: number;
  /** Per stream, the revisions the archive makes readable. */
  streams: Record<StreamId, ArchiveRange>;
  /** The seqs of the first and last transition in it. */
  seqs: ArchiveRange;
  /** Transitions in it. */
  transitions: number;
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Check the whole archives state.
 * @throws INPUT_INVALID `{ field: 'archive', reason: 'name' | 'record' }`
 */
export function checkArchiveDeclarations(state: JsonObject): void {
  for (const [name, value] of Object.entries(state)) archiveRecordOf(name, value);
}

/**
 * The record of archive `name` as stored.
 * @throws INPUT_INVALID `{ field: 'archive', reason: 'name' | 'record' }`
 */
export function archiveRecordOf(name: string, value: JsonValue | undefined): ArchiveRecord {
  if (!NAME.test(name)) throw invalid('name', `Archive name ${JSON.stringify(name.slice(0, 140))} must match [A-Za-z0-9][A-Za-z0-9_.-]* (at most 128 characters)`);
  const bad = (): never => {
    throw invalid('record', `Archive record ${name} must be { digest, bytes, streams: { <stream>: { from, to } }, seqs: { from, to }, transitions }`);
  };
  if (!isJsonObject(value) || typeof value.digest !== 'string' || !/^[0-9a-f]{64}$/.test(value.digest)) return bad();
  if (!count(value.bytes) || !count(value.transitions) || !isRange(value.seqs) || !isJsonObject(value.streams)) return bad();
  if (!Object.values(value.streams).every(isRange)) return bad();
  return value as unknown as ArchiveRecord;
}

function count(n: JsonValue | undefined): boolean {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

function isRange(r: JsonValue | undefined): boolean {
  return isJsonObject(r) && count(r.from) && count(r.to) && (r.from as number) <= (r.to as number) && Object.keys(r).length === 2;
}

function invalid(reason: 'name' | 'record', message: string): StateflowError<'INPUT_INVALID'> {
  return new StateflowError('INPUT_INVALID', `${message}; nothing was written`, { field: 'archive', reason });
}
