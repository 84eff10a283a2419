/**
 * The retention archive file (README "Retention": archives): what a run removes, written before
 * it removes it, as JSON Lines (UTF-8, one JSON value and `\n` per line), in this order:
 *
 * 1. `{ "archive": 1, "name": <name>, "created": <ISO 8601>, "streams": { <stream>: { "from", "to" } } }`
 *    — the revisions `from`…`to` (inclusive) of each stream the archive makes readable;
 * 2. per stream, `{ "checkpoint": { "stream", "rev": <from>, "state": <state at from> } }`;
 * 3. per transition, ascending seq, `{ "transition": <the transition as export writes it> }`,
 *    its `prevHash` and `hash` those of the store's chain — every transition that produced a
 *    revision `from + 1`…`to` of an archived stream.
 *
 * The store records the file's sha256 and size on `stateflow:archives`, so the file is bound to
 * the hash chain. Reading tolerates nothing: any other line is a malformed archive.
 */
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { StateflowError, isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store, StreamId, Transition } from '../types.js';
import type { ArchiveRange, ArchiveRecord } from './archive-declarations.js';

/** An archive as read from its file. */
export interface ArchiveContents {
  name: string;
  created: string;
  streams: Record<StreamId, ArchiveRange>;
  checkpoints: Map<StreamId, JsonObject>;
  transitions: Transition[];
  /** sha256 of the file, 64 hex, and its size in bytes. */
  digest: string;
  bytes: number;
}

/** The archive name of `file`: its base name. */
export function archiveName(file: string): string {
  return path.basename(file);
}

/**
 * Write the archive of `streams` (each with the seqs of the transitions of its archived
 * revisions) to `file` (created; never overwritten) and sync it; its record.
 * @throws STORE_IO when the file exists or cannot be written
 */
export async function writeArchive(store: Store, file: string, created: string, streams: Map<StreamId, { range: ArchiveRange; seqs: number[] }>): Promise<ArchiveRecord> {
  const seqs = new Set<number>();
  for (const { seqs: own } of streams.values()) for (const seq of own) seqs.add(seq);
  const sorted = [...seqs].sort((a, b) => a - b);
  const lines: string[] = [JSON.stringify({ archive: 1, name: archiveName(file), created, streams: Object.fromEntries([...streams].map(([s, { range }]) => [s, range])) })];
  for (const [stream, { range }] of streams) lines.push(JSON.stringify({ checkpoint: { stream, rev: range.from, state: await store.stateAt(stream, range.from) } }));
  if (sorted.length > 0) {
    for await (const t of store.transitions({ from: sorted[0], to: sorted[sorted.length - 1] })) if (seqs.has(t.seq)) lines.push(JSON.stringify({ transition: t }));
  }
  const text = `${lines.join('\n')}\n`;
  try {
    const handle = await open(file, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new StateflowError('STORE_IO', `Could not write the archive ${file} (an archive is never overwritten): ${(err as Error).message}`, { location: file, code: (err as NodeJS.ErrnoException).code ?? null }, { cause: err });
  }
  const first = sorted[0] ?? 0;
  return { digest: sha256(text), bytes: Buffer.byteLength(text, 'utf8'), streams: Object.fromEntries([...streams].map(([s, { range }]) => [s, range])), seqs: { from: first, to: sorted[sorted.length - 1] ?? first }, transitions: sorted.length };
}

/**
 * Read the archive `file`.
 * @throws NOT_FOUND when there is no such file; INPUT_INVALID `{ field: 'archive', reason: 'malformed' }`
 *   for a line out of the format (its number in the message)
 */
export async function readArchive(file: string): Promise<ArchiveContents> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StateflowError('NOT_FOUND', `There is no archive ${file}`, { file }, { cause: err });
    throw new StateflowError('STORE_IO', `Could not read the archive ${file}: ${(err as Error).message}`, { location: file, code: (err as NodeJS.ErrnoException).code ?? null }, { cause: err });
  }
  const lines = text.split('\n');
  if (lines.pop() !== '') throw malformed(file, lines.length, 'the file does not end with a newline');
  const parsed = lines.map((line, i) => {
    try {
      const value: unknown = JSON.parse(line);
      if (isJsonObject(value as never)) return value as JsonObject;
    } catch {
      // reported below
    }
    throw malformed(file, i + 1, 'not a JSON object');
  });
  const header = parsed[0];
  if (header?.archive !== 1 || typeof header.name !== 'string' || typeof header.created !== 'string' || !isJsonObject(header.streams)) throw malformed(file, 1, 'not an archive header');
  const checkpoints = new Map<StreamId, JsonObject>();
  const transitions: Transition[] = [];
  parsed.slice(1).forEach((entry, i) => {
    const cp = entry.checkpoint;
    if (isJsonObject(cp) && typeof cp.stream === 'string' && isJsonObject(cp.state)) checkpoints.set(cp.stream, cp.state);
    else if (isJsonObject(entry.transition)) transitions.push(entry.transition as unknown as Transition);
    else throw malformed(file, i + 2, 'neither a checkpoint nor a transition');
  });
  return { name: header.name, created: header.created, streams: header.streams as unknown as Record<StreamId, ArchiveRange>, checkpoints, transitions, digest: sha256(text), bytes: Buffer.byteLength(text, 'utf8') };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function malformed(file: string, line: number, why: string): StateflowError<'INPUT_INVALID'> {
  return new StateflowError('INPUT_INVALID', `${file} line ${line} is not a Stateflow archive line: ${why}`, { field: 'archive', reason: 'malformed' });
}
