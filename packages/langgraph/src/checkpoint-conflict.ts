/**
 * The typed conflict of write fencing (README "Write fencing").
 */
import { StateflowError } from '@stateflow/core';
import type { ErrorDetailsByCode } from '@stateflow/core';

/**
 * Details of a {@link CheckpointConflictError}: the store's `CONFLICT` details (the stream and
 * its revisions) plus the checkpoints in LangGraph's terms.
 */
type StoreConflictDetails = ErrorDetailsByCode['CONFLICT'];

export interface CheckpointConflictDetails extends StoreConflictDetails {
  /** The namespace's stream. */
  stream: string;
  /** The stream revision the writer's parent was read at, or `'none'` for a first checkpoint. */
  expected: number | 'none';
  /** The stream's revision when the put was refused. */
  actual: number;
  thread_id: string;
  checkpoint_ns: string;
  /** The checkpoint the refused put extended (`null`: it started the thread). */
  parent_checkpoint_id: string | null;
  /** The namespace's head that another writer put in between (`null`: the thread was deleted). */
  head_checkpoint_id: string | null;
}

/**
 * A fenced `put` found that another writer had already extended its parent (or started the
 * thread, or deleted it): publishing would fork the thread's history behind the other writer's
 * back, so nothing was written. Code `CONFLICT` (HTTP 409, CLI exit 4), like every lost CAS in
 * Stateflow.
 *
 * A LangGraph run that gets it has lost a race for the thread: re-read the thread
 * (`graph.getState`) and either stop (another process is running it) or invoke again from the
 * new head. Deliberate branches — `updateState` on a past checkpoint, a replay from an old
 * `checkpoint_id` — are never refused.
 */
export class CheckpointConflictError extends StateflowError<'CONFLICT'> {
  declare readonly details: CheckpointConflictDetails;

  constructor(details: CheckpointConflictDetails) {
    const parent = details.parent_checkpoint_id === null ? 'a first checkpoint' : `a child of checkpoint ${details.parent_checkpoint_id}`;
    const head = details.head_checkpoint_id === null ? 'the thread was deleted' : `its head is now checkpoint ${details.head_checkpoint_id}`;
    super(
      'CONFLICT',
      `Another writer moved LangGraph thread ${JSON.stringify(details.thread_id)}${details.checkpoint_ns === '' ? '' : ` (namespace ${JSON.stringify(details.checkpoint_ns)})`} on: this put of ${parent} was refused because ${head}. Re-read the thread and run again from its head.`,
      details,
    );
    this.name = 'CheckpointConflictError';
  }
}
