/**
 * The requests of the undo view, through the store API: the writers of a stream's recent
 * transitions (`GET /v1/store/transitions`, each one's `meta.writer`), the preview (`POST
 * /v1/store/undo` as a dry run: every patch and conflict, nothing published) and the
 * publication, guarded by the heads the preview read (`expected`), so what is published is what
 * was previewed.
 */
import { ApiError, get, post, query } from './api.js';
import type { Transition, UndoResult, WriterMatch } from './types.js';

/** An undo's plan: a preview, noop or accepted undo (not a duplicate). */
export type UndoPreview = Exclude<UndoResult, { status: 'duplicate' }>;

/** One writer seen in the log, with the first seq of it shown and how many transitions it wrote. */
export interface SeenWriter {
  label: string;
  match: WriterMatch;
  firstSeq: number;
  count: number;
  /** The MCP tools its transitions were written by (`meta.writer.tool`). */
  tools: string[];
}

/** The fields of a `meta.writer` an undo may select by. */
const FIELDS = ['user', 'surface', 'client', 'ladder'] as const;

/** The writers of `stream`'s last transitions (up to 500), in the order they first appear. */
export async function writersOf(stream: string, signal?: AbortSignal): Promise<SeenWriter[]> {
  const page = await get<{ transitions: Transition[] }>(`/v1/store/transitions${query({ stream, limit: 500 })}`, signal);
  const seen = new Map<string, SeenWriter>();
  for (const t of page.transitions) {
    const writer = t.meta?.writer;
    if (writer === null || typeof writer !== 'object' || Array.isArray(writer)) continue;
    const match: WriterMatch = {};
    for (const field of FIELDS) {
      const value = (writer as Record<string, unknown>)[field];
      if (typeof value === 'string') match[field] = value;
    }
    const label = FIELDS.map((f) => match[f]).filter((v) => v !== undefined).join(' ');
    if (label === '') continue;
    const entry = seen.get(label) ?? { label, match, firstSeq: t.seq, count: 0, tools: [] };
    entry.count++;
    const tool = (writer as Record<string, unknown>)['tool'];
    if (typeof tool === 'string' && !entry.tools.includes(tool)) entry.tools.push(tool);
    seen.set(label, entry);
  }
  return [...seen.values()];
}

/** What to undo, and for a publication what the preview read. */
export interface UndoRequest {
  writer: WriterMatch;
  since: number;
  prefer?: 'ours' | 'theirs';
  heads?: Record<string, number>;
}

/** The plan of the undo without publishing. */
export function previewUndo(request: UndoRequest): Promise<UndoPreview> {
  return post<UndoPreview>('/v1/store/undo', { writer: request.writer, since: request.since, ...(request.prefer === undefined ? {} : { prefer: request.prefer }), dryRun: true });
}

/** Publish the undo previewed, guarded by its heads. @throws ApiError `CONFLICT` (a stream moved), `UNDO_CONFLICT` */
export function publishUndo(request: UndoRequest): Promise<UndoPreview> {
  return post<UndoPreview>('/v1/store/undo', { writer: request.writer, since: request.since, ...(request.prefer === undefined ? {} : { prefer: request.prefer }), ...(request.heads === undefined ? {} : { expected: request.heads }) });
}

/** A failure of a step, as the page says it. */
export function undoFailureText(err: unknown): string {
  if (err instanceof ApiError && err.code === 'CONFLICT') return 'A stream changed since the preview; nothing was published. Preview again.';
  if (err instanceof ApiError && err.code === 'UNDO_CONFLICT') return 'Other writers changed what this writer wrote: choose ours or theirs for the conflicts; nothing was published.';
  return err instanceof Error ? err.message : String(err);
}
