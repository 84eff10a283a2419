/**
 * The history tools for agents (README "History tools"): `history`, `diff_revisions` and `undo`
 * over the selected owners. They are **opt-in**, outside the seed's two tools (`read_state`,
 * `patch_state`), whose contract they leave unchanged: a transport lists them only when asked to
 * (`stateflow serve --history-tools`). They read and write through the same access rules as
 * HTTP: the selection is checked before a tool runs, reads stay inside the selected owners, and
 * `undo` is limited to the caller's own writes on them — the transport passes the function that
 * undoes as the caller may (`undo` of {@link HistoryToolsOptions}).
 */
import { StateflowError, describeInput, isJsonObject, isTagName } from '@stateflow/core';
import type { JsonObject, JsonValue, MergeResolution, OwnerScope } from '@stateflow/core';
import { revisionAtTag } from '@stateflow/store';
import type { Store, StreamId, UndoInput, UndoResult, UndoSince } from '@stateflow/store';
import { selectedOwners } from './selection.js';
import type { SelectedOwner, Selection } from './selection.js';

export const HISTORY_TOOL = 'history';
export const DIFF_REVISIONS_TOOL = 'diff_revisions';
export const UNDO_TOOL = 'undo';

/** Most transitions one `history` page holds. */
export const MAX_HISTORY_PAGE = 50;

const ownerProperty = { type: 'string', enum: ['global', 'cwd', 'session'], description: 'The owner (default: the one selected owner)' } as const;
const revisionOrTag = { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,127}$' }] } as const;

/** JSON Schema of the `history` input. */
export const historyInputSchema = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_PAGE, description: `Transitions per page (default 10, at most ${MAX_HISTORY_PAGE})` },
    before: { type: 'integer', minimum: 1, description: 'Only transitions with a lower seq (the next_before of the previous page)' },
  },
  additionalProperties: false,
} as const;

/** JSON Schema of the `diff_revisions` input. */
export const diffRevisionsInputSchema = {
  type: 'object',
  properties: { owner: ownerProperty, from: { ...revisionOrTag, description: 'A revision of the owner, or a tag' }, to: { ...revisionOrTag, description: 'A revision or a tag (default: the head)' } },
  required: ['from'],
  additionalProperties: false,
} as const;

/** JSON Schema of the `undo` input. */
export const undoInputSchema = {
  type: 'object',
  properties: {
    since: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }], description: 'Undo your writes after this seq, after this tag, or from this ISO 8601 time' },
    dry_run: { type: 'boolean', description: 'Only show what would be undone and the conflicts (default true)' },
    prefer: { type: 'string', enum: ['ours', 'theirs'], description: 'Settle conflicts: ours keeps the later writes, theirs takes the state before yours' },
    resolve: { type: 'object', description: 'Per owner and conflict path: {"cwd": {"/lazy/plan": "ours" | "theirs" | {"value": ...}}}' },
  },
  required: ['since'],
  additionalProperties: false,
} as const;

export const HISTORY_DESCRIPTION =
  "The selected owners' recent transitions, newest first: seq, time, writer and each owner's net patch. Page back with before = next_before.";
export const DIFF_REVISIONS_DESCRIPTION = 'The patch that turns one revision (or tag) of an owner into another (default: its current state).';
export const UNDO_DESCRIPTION =
  'Undo your own writes to the selected owners since a seq, tag or time, as one new transition. Other writers\' changes stay; where they changed what you wrote, the answer lists conflicts (settle with prefer or resolve). dry_run (default true) only shows it.';

/** Options of {@link createHistoryTools}. */
export interface HistoryToolsOptions {
  store: Store;
  selection: Selection;
  /** Undo as the caller may: the transport fixes the writer to the caller and checks each stream written. */
  undo: (input: UndoInput) => Promise<UndoResult>;
}

/** The three tools' handlers. */
export interface HistoryTools {
  history(input: unknown): Promise<{ transitions: HistoryEntry[]; next_before: number | null }>;
  diffRevisions(input: unknown): Promise<{ patch: JsonObject }>;
  undo(input: unknown): Promise<UndoResult>;
}

/** One transition as `history` shows it. */
export interface HistoryEntry {
  seq: number;
  time: string;
  writer: JsonValue | null;
  changes: { owner: OwnerScope; rev: number; patch: JsonObject }[];
}

/**
 * The history tools for `selection` over `store`.
 * @throws StateflowError `INPUT_INVALID` for an invalid selection
 */
export function createHistoryTools(options: HistoryToolsOptions): HistoryTools {
  const owners = selectedOwners(options.selection);
  return {
    history: (input) => history(options.store, owners, input),
    diffRevisions: (input) => diffRevisions(options.store, owners, input),
    undo: (input) => options.undo(undoInput(owners, input)),
  };
}

async function history(store: Store, owners: SelectedOwner[], input: unknown): Promise<{ transitions: HistoryEntry[]; next_before: number | null }> {
  const { limit = 10, before } = objectInput(input, HISTORY_TOOL) as { limit?: unknown; before?: unknown };
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_HISTORY_PAGE) invalid('limit', `limit must be an integer 1…${MAX_HISTORY_PAGE}, got ${describeInput(limit)}`);
  if (before !== undefined && (!Number.isSafeInteger(before) || (before as number) < 1)) invalid('before', `before must be a seq ≥ 1, got ${describeInput(before)}`);
  const bound = (before as number | undefined) ?? store.lastSeq() + 1;
  const seqs = new Set<number>();
  for (const owner of owners) for (const seq of await seqsBefore(store, owner.stream, bound, limit as number)) seqs.add(seq);
  const page = [...seqs].sort((a, b) => b - a).slice(0, limit as number);
  const transitions: HistoryEntry[] = [];
  for (const seq of page) {
    const t = await store.transition(seq);
    const changes = t.changes.flatMap((c) => owners.filter((o) => o.stream === c.stream).map((o) => ({ owner: o.scope, rev: c.rev, patch: c.patch })));
    transitions.push({ seq, time: t.time, writer: (t.meta?.writer as JsonValue | undefined) ?? null, changes });
  }
  const last = page[page.length - 1];
  return { transitions, next_before: page.length === limit && last !== undefined && last > 1 ? last : null };
}

/** The seqs of at most `limit` of `stream`'s latest revisions produced before seq `bound` (retained ones). */
async function seqsBefore(store: Store, stream: StreamId, bound: number, limit: number): Promise<number[]> {
  const head = await store.head(stream);
  const first = Math.max(head.origin, 1);
  if (head.rev < first) return [];
  // The newest revision below the bound: a binary search of the revision index.
  let top = head.rev;
  if (head.seq >= bound) {
    let lo = first;
    let hi = head.rev;
    if ((await store.revisionSeq(stream, lo)) >= bound) return [];
    // Invariant: revision lo was produced before the bound, revision hi at or after it.
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await store.revisionSeq(stream, mid)) < bound) lo = mid;
      else hi = mid;
    }
    top = lo;
  }
  const out: number[] = [];
  for (let rev = top; rev >= first && out.length < limit; rev--) out.push(await store.revisionSeq(stream, rev));
  return out;
}

async function diffRevisions(store: Store, owners: SelectedOwner[], input: unknown): Promise<{ patch: JsonObject }> {
  const { owner, from, to } = objectInput(input, DIFF_REVISIONS_TOOL) as { owner?: unknown; from?: unknown; to?: unknown };
  const stream = ownerOf(owners, owner).stream;
  const rev = async (point: unknown, field: string): Promise<number> => {
    if (typeof point === 'number' && Number.isSafeInteger(point) && point >= 0) return point;
    if (typeof point === 'string' && isTagName(point)) return revisionAtTag(store, stream, point);
    return invalid(field, `${field} must be a revision (an integer ≥ 0) or a tag, got ${describeInput(point)}`);
  };
  const a = await rev(from, 'from');
  const b = to === undefined ? (await store.head(stream)).rev : await rev(to, 'to');
  return { patch: await store.diff(stream, a, b) };
}

/** The store's undo input for the tool's input: streams the selected owners', resolutions by stream. */
function undoInput(owners: SelectedOwner[], input: unknown): UndoInput {
  const { since, dry_run: dryRun = true, prefer, resolve } = objectInput(input, UNDO_TOOL) as { since?: unknown; dry_run?: unknown; prefer?: unknown; resolve?: unknown };
  if (typeof dryRun !== 'boolean') invalid('dry_run', `dry_run must be a boolean, got ${describeInput(dryRun)}`);
  const out: UndoInput = { writer: {}, since: sinceOf(since), streams: owners.map((o) => o.stream), dryRun: dryRun as boolean };
  if (prefer !== undefined) out.prefer = prefer as 'ours' | 'theirs';
  if (resolve !== undefined) {
    if (!isJsonObject(resolve)) invalid('resolve', 'resolve must be an object by owner: {"cwd": {"/lazy/plan": "ours"}}');
    out.resolve = Object.fromEntries(Object.entries(resolve).map(([scope, paths]) => [ownerOf(owners, scope).stream, paths as Record<string, MergeResolution>]));
  }
  return out;
}

function sinceOf(since: unknown): UndoSince {
  if (typeof since === 'number') return since;
  if (typeof since === 'string' && isTagName(since)) return { tag: since };
  if (typeof since === 'string' && !Number.isNaN(Date.parse(since))) return { time: since };
  return invalid('since', `since must be a seq, a tag or an ISO 8601 time, got ${describeInput(since)}`);
}

function ownerOf(owners: SelectedOwner[], scope: unknown): SelectedOwner {
  if (scope === undefined) {
    if (owners.length === 1) return owners[0] as SelectedOwner;
    return invalid('owner', `name the owner (${owners.map((o) => o.scope).join(', ')}): several are selected`);
  }
  const found = owners.find((o) => o.scope === scope);
  if (found === undefined) throw new StateflowError('OWNER_NOT_SELECTED', `Owner ${describeInput(scope)} is not selected (selected: ${owners.map((o) => o.scope).join(', ')})`, { owner: String(scope) });
  return found;
}

function objectInput(input: unknown, tool: string): Record<string, unknown> {
  if (!isJsonObject(input)) invalid('input', `${tool} takes an object, got ${describeInput(input)}`);
  return input as Record<string, unknown>;
}

function invalid(field: string, message: string): never {
  throw new StateflowError('INPUT_INVALID', message, { field });
}
