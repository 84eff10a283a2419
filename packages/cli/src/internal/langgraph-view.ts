/**
 * `stateflow show` and `diff` on the streams of the LangGraph checkpointer (`@stateflow/langgraph`,
 * whose README "The stored layout" names them `langgraph:<thread>[/<namespace>]`): each revision
 * is printed as the checkpoint it describes, decoded as LangGraph shows it (channel values,
 * messages, pending writes), and as what changed since the revision before, instead of the
 * stored form (`$len` / `$null` tags, serializer records). `--stored` prints the stored form.
 * `@stateflow/langgraph` (and LangChain with it) is loaded only when such a stream is printed: it
 * is an optional peer dependency of the CLI, and without it printing such a stream decoded fails
 * with `PACKAGE_NOT_INSTALLED` (`--stored` prints the stored form without it).
 */
import { isStateflowError, missingPackage } from '@stateflow/core/errors';
import type { CheckpointChanges, CheckpointView } from '@stateflow/langgraph';
import type { Store, StreamChange, Transition } from '@stateflow/store';

/** The prefix of every stream the checkpointer writes. */
const CHECKPOINT_STREAM_PREFIX = 'langgraph:';

/** Whether `stream` holds LangGraph checkpoints (one thread and namespace). */
export function isCheckpointStream(stream: string): boolean {
  return stream.startsWith(CHECKPOINT_STREAM_PREFIX);
}

/** A change of a checkpoint stream, decoded: the revision's checkpoint and what it changed. */
export interface DecodedChange {
  stream: string;
  rev: number;
  checkpoint: CheckpointChanges;
}

/**
 * `transition` with each change of a checkpoint stream decoded (what that revision changed,
 * from the revision before); other changes, and those whose revision before was compacted
 * away, stay as stored.
 */
export async function decodedTransition(store: Store, transition: Transition): Promise<Omit<Transition, 'changes'> & { changes: (StreamChange | DecodedChange)[] }> {
  const changes: (StreamChange | DecodedChange)[] = [];
  for (const change of transition.changes) {
    if (!isCheckpointStream(change.stream)) {
      changes.push(change);
      continue;
    }
    const decoded = await changesOf(store, change.stream, change.rev);
    changes.push(decoded === null ? change : { stream: change.stream, rev: change.rev, checkpoint: decoded });
  }
  return { ...transition, changes };
}

/**
 * What changed in checkpoint stream `stream` from revision `revA` to `revB`, decoded.
 * @throws what `stateAt` throws (REVISION_NOT_FOUND above the head, HISTORY_NOT_RETAINED below the
 *   origin); PACKAGE_NOT_INSTALLED when `@stateflow/langgraph` is not installed
 */
export async function decodedDiff(store: Store, stream: string, revA: number, revB: number): Promise<{ stream: string; from: number; to: number } & CheckpointChanges> {
  return { stream, from: revA, to: revB, ...(await changesBetween(store, stream, revA, revB)) };
}

async function changesBetween(store: Store, stream: string, revA: number, revB: number): Promise<CheckpointChanges> {
  const { checkpointChanges, viewCheckpoint } = await import('@stateflow/langgraph').catch((err: unknown) => {
    throw missingPackage(err, `Printing ${stream} decoded (without --stored)`) ?? err;
  });
  const view = async (rev: number): Promise<CheckpointView | null> => (rev === 0 ? null : viewCheckpoint(await store.stateAt(stream, rev)));
  const [before, after] = await Promise.all([view(revA), view(revB)]);
  return checkpointChanges(before, after);
}

/** {@link changesBetween} the revision before `rev` and `rev`, or `null` when that one is not retained. */
async function changesOf(store: Store, stream: string, rev: number): Promise<CheckpointChanges | null> {
  try {
    return await changesBetween(store, stream, rev - 1, rev);
  } catch (err) {
    if (isStateflowError(err, 'HISTORY_NOT_RETAINED')) return null;
    throw err;
  }
}
