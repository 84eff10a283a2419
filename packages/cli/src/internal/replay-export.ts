/**
 * Rebuilding a store from a full export (`stateflow replay`; DESIGN.md "Tamper evidence"): every
 * transition is appended verbatim (same seq, time and hash) into a new store built beside the
 * target, each rebuilt hash is checked against the exported one, the result is audited, and only
 * then is the new store moved into place (`withNewStore`): a failed replay leaves the target as
 * it was.
 */
import { stat } from 'node:fs/promises';
import { StateflowError, isJsonObject, isStateflowError } from '@stateflow/core';
import type { Store, Transition } from '@stateflow/store';
import type { GlobalOptions } from '../global-options.js';
import { atLine, readJsonLines } from './json-lines.js';
import { inBatches } from './batches.js';
import { count } from './output.js';
import type { Progress } from './progress.js';
import { withNewStore } from './store-access.js';

/** Result of a replay. */
export interface ReplayReport {
  dir: string;
  transitions: number;
  lastSeq: number;
  /** Hash of the last transition (64 zeros for an empty export). */
  hash: string;
  /** Audit problems of the rebuilt store: always 0 (a replay with problems fails). */
  problems: number;
}

/**
 * Replay the export `file` into the store `options.store` names (a new or empty directory, or
 * schema). `progress` counts the export's bytes read, then the audit's records.
 * @throws STORE_CORRUPT naming the line for a hash that does not verify (the export was altered)
 *   or an audit problem; INPUT_INVALID naming the line for a line that is not an exported
 *   transition or a partial export; USAGE for a target that holds files or a store
 */
export async function replayExport(file: string, options: GlobalOptions, progress: Progress): Promise<ReplayReport> {
  const { size } = await stat(file);
  return withNewStore(options.store, async (store): Promise<ReplayReport> => {
    progress.phase('replay: appending', { unit: 'bytes', total: size });
    let transitions = 0;
    let hash = '0'.repeat(64);
    for await (const batch of inBatches(readJsonLines(file, (bytes) => progress.update(bytes)), { count: BATCH_TRANSITIONS, size: BATCH_CHARS, sizeOf: (line) => line.chars })) {
      const lines = batch.map(({ line, value }) => ({ line, transition: asTransition(value, file, line) }));
      await appendBatch(store, lines, file);
      hash = (lines.at(-1) as { transition: Transition }).transition.hash;
      transitions += lines.length;
    }
    progress.phase('replay: auditing');
    const audit = await store.audit({ onProgress: (done, total) => progress.update(done, total) });
    const first = audit.problems[0];
    if (first !== undefined) {
      throw new StateflowError(
        'STORE_CORRUPT',
        `The replayed store fails its audit with ${count(audit.problems.length, 'problem')} (first: ${first.code} ${first.key ?? ''}: ${first.detail}); nothing was written to ${options.storeLabel}.`,
        { detail: `${first.code}: ${first.detail}` },
      );
    }
    return { dir: options.storeLabel, transitions, lastSeq: store.lastSeq(), hash, problems: 0 };
  });
}

/** A batch of replay (one `appendMany`, one storage write): at most this many transitions, of at most this many characters of export in all. */
const BATCH_TRANSITIONS = 500;
const BATCH_CHARS = 4 * 1024 * 1024;

/**
 * Append one batch verbatim, then check every stored hash against the export. When the batch is
 * refused (it wrote nothing), its transitions are appended one at a time, which names the line at
 * fault (the store is new, and thrown away whole when the replay fails).
 * @throws the failure, with the file and line it came from
 */
async function appendBatch(store: Store, lines: { line: number; transition: Transition }[], file: string): Promise<void> {
  try {
    await store.appendMany(lines.map(({ transition }) => transition));
  } catch {
    for (const { line, transition } of lines) {
      try {
        await store.append(transition);
      } catch (err) {
        throw atLine(asVerificationFailure(err), file, line);
      }
    }
  }
  const first = (lines[0] as { transition: Transition }).transition.seq;
  let i = 0;
  for await (const stored of store.transitions({ from: first, to: first + lines.length - 1 })) {
    const { line, transition } = lines[i++] as { line: number; transition: Transition };
    if (stored.hash !== transition.hash) {
      throw atLine(new StateflowError('STORE_CORRUPT', `rebuilt hash ${stored.hash} differs from exported hash ${transition.hash}.`, { detail: `seq ${transition.seq}` }), file, line);
    }
  }
}

/**
 * A transition whose hash or hash link does not verify means the export was altered or damaged:
 * that is corruption (exit 5), not bad usage. Other append failures keep their code.
 */
function asVerificationFailure(err: unknown): unknown {
  if (!isStateflowError(err, 'INPUT_INVALID')) return err;
  const field = (err.details as { field?: unknown }).field;
  if (field === 'hash' || field === 'prevHash') {
    return new StateflowError(
      'STORE_CORRUPT',
      `${err.message}: the export was altered or damaged; export it again from the source store.`,
      { detail: String(field) },
      { cause: err },
    );
  }
  if (field === 'seq') {
    return new StateflowError(
      'INPUT_INVALID',
      `${err.message}: replay needs a full export (no --stream) of a store whose log starts at seq 1.`,
      err.details,
      { cause: err },
    );
  }
  return err;
}

function asTransition(value: unknown, file: string, line: number): Transition {
  if (!isJsonObject(value) || typeof value['seq'] !== 'number' || typeof value['hash'] !== 'string') {
    throw new StateflowError(
      'INPUT_INVALID',
      `Line ${line} of ${file} is not an exported transition (needs seq and hash): replay takes the output of "stateflow export".`,
      { field: `line ${line}`, reason: 'transition' },
    );
  }
  return value as unknown as Transition;
}
