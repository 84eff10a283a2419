/**
 * The streams rail's rows: the streams loaded so far under a heading per kind (in a fixed order,
 * with the server's count of each kind), kinds without streams left out. Pure.
 */
import type { StreamKind, StreamPage, StreamRow } from './types.js';

const KIND_ORDER: StreamKind[] = ['global', 'cwd', 'session', 'slate', 'ladder-session', 'other'];

/** The heading of each kind. */
export const KIND_TITLE: Record<StreamKind, string> = {
  global: 'global',
  cwd: 'cwd:*',
  session: 'session:*',
  slate: 'slate:*',
  'ladder-session': 'ladder-session:*',
  other: 'other',
};

/** A kind's heading (with how many streams it has), or a stream. */
export type RailRow = { type: 'group'; kind: StreamKind; count: number } | { type: 'stream'; row: StreamRow };

/** The rows of `rows` grouped by kind; `counts` from the last page (`null`: nothing yet). */
export function railRows(rows: readonly StreamRow[], counts: StreamPage['counts'] | null): RailRow[] {
  const out: RailRow[] = [];
  for (const kind of KIND_ORDER) {
    const count = counts?.[kind] ?? 0;
    if (count === 0) continue;
    out.push({ type: 'group', kind, count });
    for (const row of rows) if (row.kind === kind) out.push({ type: 'stream', row });
  }
  return out;
}
