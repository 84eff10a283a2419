/**
 * The text `stateflow undo` prints about an undo, in the manner of `stateflow merge`'s report:
 * whose transitions it undoes, the changes it publishes (or would) per stream, the conflicts
 * still open (stream, kind, path and the three values) with how to settle them, and the
 * conflicts already settled.
 */
import { conflictKind } from '@stateflow/core';
import type { JsonObject, WriterMatch } from '@stateflow/core';
import type { UndoConflict } from '@stateflow/store';
import { KIND_LABEL, changedPaths, indent, shown } from './merge-report.js';
import { table } from './output.js';

/** What the report is about: an undo plan, or a refused undo's details (no patches). */
export interface UndoReportInput {
  writer?: WriterMatch;
  since: number;
  through: number;
  /** The seqs undone, or their count (a refused undo's details). */
  undone: number[] | number;
  patches: Record<string, JsonObject> | null;
  conflicts: UndoConflict[];
}

/** Changed paths listed before the rest are counted. */
const MAX_CHANGES = 20;

/** The report, ending with a newline. */
export function undoReport(input: UndoReportInput): string {
  const { since, through, undone, patches, conflicts } = input;
  const count = typeof undone === 'number' ? undone : undone.length;
  const seqs = typeof undone === 'number' || undone.length === 0 ? '' : ` (seq ${undone.slice(0, 10).join(', ')}${undone.length > 10 ? ', …' : ''})`;
  const whose = input.writer === undefined ? '' : ` by ${Object.entries(input.writer).map(([k, v]) => `${k}=${v}`).join(',')}`;
  const lines = [`Undoing ${count} transition${count === 1 ? '' : 's'}${whose} after seq ${since}, through seq ${through}${seqs}.`];
  if (patches !== null) {
    const changes = Object.entries(patches).flatMap(([stream, patch]) => changedPaths(patch).map(([how, path]) => `  ${how}:  ${stream} ${path}`));
    lines.push('');
    if (changes.length === 0) lines.push('Nothing to publish: no change of theirs is left that does not conflict.');
    else {
      lines.push('Changes to be published:', ...changes.slice(0, MAX_CHANGES));
      if (changes.length > MAX_CHANGES) lines.push(`  … and ${changes.length - MAX_CHANGES} more (--json prints every patch)`);
    }
  }
  const open = conflicts.filter((c) => c.resolution === undefined);
  const settled = conflicts.filter((c) => c.resolution !== undefined);
  if (open.length > 0) {
    lines.push(
      '',
      `Conflicting paths (${open.length}): another writer changed them after the undone transitions`,
      '  (settle each with --resolve STREAM#PATH=ours|theirs|JSON, or all with --prefer ours|theirs; ours = keep them as they are now, theirs = as before the undone writes)',
    );
    const rows = open.map((c) => [c.stream, KIND_LABEL[conflictKind(c)], c.path, shown(c.base, '(absent)'), shown(c.ours, '(deleted)'), shown(c.theirs, '(deleted)')]);
    lines.push(indent(table(['stream', 'kind', 'path', 'base', 'ours', 'theirs'], rows)));
  }
  if (settled.length > 0) {
    lines.push('', `Resolved (${settled.length}):`);
    const rows = settled.map((c) => [c.stream, c.path, c.resolution === 'ours' || c.resolution === 'theirs' ? c.resolution : shown(c.resolution?.value ?? null, '(deleted)')]);
    lines.push(indent(table(['stream', 'path', 'resolution'], rows)));
  }
  return `${lines.join('\n')}\n`;
}
