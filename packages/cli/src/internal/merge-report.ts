/**
 * The text `stateflow merge` prints about a merge, in the manner of `git status`: what it merges,
 * the changes it publishes (or would), the conflicts still open (kind, path and the three
 * values) with how to settle them, and the conflicts already settled.
 */
import { childPointer, conflictKind, isJsonObject } from '@stateflow/core';
import type { JsonObject, JsonValue, MergeConflict, MergeConflictKind } from '@stateflow/core';
import type { MergeBase } from '@stateflow/store';
import { clip, table } from './output.js';

/** What the report is about: a merge plan, or a refused merge's details (no patch). */
export interface MergeReportInput {
  from: string;
  fromRev: number;
  into: string;
  intoRev: number;
  base: MergeBase;
  /** The patch of `into`, or `null` when it is not known (a refused merge). */
  patch: JsonObject | null;
  conflicts: MergeConflict[];
}

/** Changed paths listed before the rest are counted. */
const MAX_CHANGES = 20;
/** Characters of a value shown in the conflict table. */
const VALUE_WIDTH = 30;

/** How a conflict's kind is labelled in a table. */
export const KIND_LABEL: Record<MergeConflictKind, string> = {
  'both-modified': 'both modified:',
  'both-added': 'both added:',
  'deleted-by-ours': 'deleted by ours:',
  'deleted-by-theirs': 'deleted by theirs:',
};

/** The report, ending with a newline. */
export function mergeReport(input: MergeReportInput): string {
  const { from, fromRev, into, intoRev, base, patch, conflicts } = input;
  const lines = [`Merging ${from} (rev ${fromRev}) into ${into} (rev ${intoRev}); merge base ${base.stream}@${base.rev}.`];
  if (patch !== null) {
    const changes = changedPaths(patch);
    lines.push('');
    if (changes.length === 0) lines.push('Nothing to publish: <into> already holds every change that does not conflict.');
    else {
      lines.push('Changes to be published:');
      for (const [how, path] of changes.slice(0, MAX_CHANGES)) lines.push(`  ${how}:  ${path}`);
      if (changes.length > MAX_CHANGES) lines.push(`  … and ${changes.length - MAX_CHANGES} more (--json prints the whole patch)`);
    }
  }
  const open = conflicts.filter((c) => c.resolution === undefined);
  const settled = conflicts.filter((c) => c.resolution !== undefined);
  if (open.length > 0) {
    lines.push('', `Unmerged paths (${open.length}):`, '  (settle each with --resolve PATH=ours|theirs|JSON, or all with --prefer ours|theirs; ours = <into>, theirs = <from>)');
    const rows = open.map((c) => [KIND_LABEL[conflictKind(c)], c.path, shown(c.base, '(absent)'), shown(c.ours, '(deleted)'), shown(c.theirs, '(deleted)')]);
    lines.push(indent(table(['kind', 'path', 'base', 'ours', 'theirs'], rows)));
  }
  if (settled.length > 0) {
    lines.push('', `Resolved (${settled.length}):`);
    const rows = settled.map((c) => [KIND_LABEL[conflictKind(c)], c.path, c.resolution === 'ours' || c.resolution === 'theirs' ? c.resolution : shown(c.resolution?.value ?? null, '(deleted)')]);
    lines.push(indent(table(['kind', 'path', 'resolution'], rows)));
  }
  return `${lines.join('\n')}\n`;
}

/** `text` with every line indented by two spaces. */
export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** A value for a conflict table, clipped; `absent` for `null`. */
export function shown(value: JsonValue | null, absent: string): string {
  return value === null ? absent : clip(JSON.stringify(value), VALUE_WIDTH);
}

/** The changes of a patch by path: `deleted`, or `changed` (an array's `"[N]"` patch counts as a change of the array). */
export function changedPaths(patch: JsonObject, at = ''): ['changed' | 'deleted', string][] {
  const out: ['changed' | 'deleted', string][] = [];
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    const path = childPointer(at, key);
    if (value === null) out.push(['deleted', path]);
    else if (isJsonObject(value) && Object.keys(value).length > 0 && !Object.keys(value).some((k) => /^\[\d+\]$/.test(k))) out.push(...changedPaths(value, path));
    else out.push(['changed', path]);
  }
  return out;
}
