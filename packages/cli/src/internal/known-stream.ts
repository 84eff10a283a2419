/**
 * Stream ids a person types: a stream with no revisions is almost always a mistyped id (`cwd`
 * for `cwd:/abs/dir`), so commands that need an existing stream say so and show the id forms.
 */
import { StateflowError } from '@stateflow/core/errors';
import type { Store, StreamId } from '@stateflow/store';

/** The id forms and where to list them, appended to "unknown stream" messages. */
const STREAM_ID_HINT =
  'stream ids look like global, cwd:/abs/dir or session:ID (or a name like history:x); run "stateflow log" to list the streams of this store';

/** "Stream X is unknown (it has no revisions): stream ids look like …". */
export function unknownStreamMessage(stream: StreamId): string {
  return `Stream ${stream} is unknown (it has no revisions): ${STREAM_ID_HINT}.`;
}

/**
 * Require that `stream` has revisions.
 *
 * @throws NOT_FOUND `{ stream }` with the id forms when it has none; STREAM_INVALID for an id
 *   the store rejects.
 */
export async function requireKnownStream(store: Store, stream: StreamId): Promise<void> {
  if ((await store.head(stream)).rev === 0) throw new StateflowError('NOT_FOUND', unknownStreamMessage(stream), { stream });
}

/** Whether `stream` has no revisions (for notes beside an empty listing). */
export async function isUnknownStream(store: Store, stream: StreamId): Promise<boolean> {
  return (await store.head(stream)).rev === 0;
}
