/**
 * Reading a transition for the inspector, with its hash chain link checked against the previous
 * transition's hash (both read from the store API, which verifies each record's own hash as it
 * reads it).
 */
import { ApiError, get } from './api.js';
import type { InspectedTransition, Transition } from './types.js';

/** The `prevHash` of the first transition. */
const ZERO_HASH = '0'.repeat(64);

/** The transition at `seq` with its link to `seq − 1` checked (`previous: null` when that one was compacted or is not found). */
export async function inspect(seq: number, signal: AbortSignal): Promise<InspectedTransition> {
  const t = await get<Transition & { prevHash?: string; hash?: string }>(`/v1/store/transitions/${seq}`, signal);
  const { prevHash, hash, ...rest } = t;
  // A transition shown in part (streams of other users left out) comes without hashes.
  if (prevHash === undefined || hash === undefined) return { ...rest, link: null };
  let previous: string | null = ZERO_HASH;
  if (seq > 1) {
    try {
      previous = (await get<Transition>(`/v1/store/transitions/${seq - 1}`, signal)).hash ?? null;
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'HISTORY_NOT_RETAINED' && err.code !== 'TRANSITION_NOT_FOUND')) throw err;
      previous = null;
    }
  }
  return { ...rest, link: { prevHash, hash, previous, verified: previous === null ? null : previous === prevHash } };
}
