/**
 * The requests of the merge view, through the store API's `POST /v1/store/merge`: the preview (a
 * dry run: the plan with every conflict, open ones included, nothing published), `into`'s state
 * at the revision the preview read (the "before" of its diff), and the publication, guarded by
 * the head the preview showed (`expected`) and pinned to the revision of `from` it merged
 * (`fromRev`), so what is published is what was previewed.
 */
import { ApiError, get, post, query } from './api.js';
import type { Resolution } from './merge-plan.js';
import type { JsonObject, MergeResult } from './types.js';

/** A merge's plan: the result of a preview, noop or accepted merge (not a duplicate). */
export type MergePreview = Exclude<MergeResult, { status: 'duplicate' }>;

/** True when the merge brings nothing: `into` already holds every change of `from` (a dry run answers that as a preview with an empty patch and no conflict). */
export function nothingToMerge(plan: MergePreview): boolean {
  return plan.status === 'noop' || (Object.keys(plan.patch).length === 0 && plan.conflicts.length === 0);
}

/** The sides to merge, and for a publication what the preview showed. */
export interface MergeRequest {
  from: string;
  into: string;
  /** The revisions the preview read: `from`'s merged, `into`'s head (the guard). */
  pinned?: { fromRev: number; intoRev: number };
  resolve?: Record<string, Resolution>;
}

function body(request: MergeRequest, dryRun: boolean) {
  return {
    from: request.from,
    into: request.into,
    ...(request.pinned === undefined ? {} : { fromRev: request.pinned.fromRev, expected: request.pinned.intoRev }),
    ...(request.resolve === undefined ? {} : { resolve: request.resolve }),
    dryRun,
  };
}

/** The plan of merging `from` into `into` without publishing. @throws ApiError `MERGE_UNRELATED` (422), `HISTORY_NOT_RETAINED` (410), `CONFLICT` (409: pinned and `into` moved). */
export async function previewMerge(request: MergeRequest): Promise<MergePreview> {
  const result = await post<MergeResult>('/v1/store/merge', body(request, true));
  if (result.status === 'duplicate') throw new ApiError(0, 'UNEXPECTED', 'a dry run answered duplicate');
  return result;
}

/** Publish the merge. @throws ApiError `CONFLICT` (409) when `into` is no longer at the head previewed, `MERGE_CONFLICT` (409) when a conflict is left open. */
export async function publishMerge(request: MergeRequest): Promise<MergeResult> {
  return post<MergeResult>('/v1/store/merge', body(request, false));
}

/** `into`'s state at revision `rev`. */
export async function stateAt(stream: string, rev: number): Promise<JsonObject> {
  return (await get<{ state: JsonObject }>(`/v1/store/state${query({ stream, rev })}`)).state;
}

/** What the page says after a failed merge request. */
export function mergeFailureText(err: unknown, into: string, intoRev: number | null): string {
  if (!(err instanceof ApiError)) return (err as Error).message;
  switch (err.code) {
    case 'CONFLICT':
      return `Conflict: ${err.message}. ${into} changed since this preview showed revision ${intoRev ?? '?'}; nothing was published. Preview again to merge into its new head.`;
    case 'MERGE_CONFLICT':
      return `Conflicts left open: ${err.message}. Nothing was published; choose a resolution for each conflict.`;
    case 'MERGE_UNRELATED':
      return `${err.message} (these streams share no origin: fork one from the other first).`;
    default:
      return `${err.code}: ${err.message}`;
  }
}
