/**
 * Shapes the page reads: the history endpoints' contract (`../history-api.ts`, shared with the
 * server), the store's transition shapes (types only), and the page's own selection.
 */
import type { Transition } from '@stateflow/store';

export type { JsonObject, JsonValue } from '@stateflow/core';
export type { PublishResult, StreamChange, Transition } from '@stateflow/store';
// Every shape of the contract, as the server declares it (types only, nothing else lives there).
export type * from '../history-api.js';

/** A transition (`GET /v1/store/transitions/{seq}`) with its hash link checked by the page. */
export interface InspectedTransition extends Omit<Transition, 'prevHash' | 'hash'> {
  /** The hash chain link; `null` when changes were left out (the hashed body is not all shown). */
  link: { prevHash: string; hash: string; previous: string | null; verified: boolean | null } | null;
}

/** What the page is looking at: one stream, or the effective overlay of a selection. */
export type Selection = { type: 'stream'; stream: string } | { type: 'effective'; global: boolean; cwd: string; session: string };
