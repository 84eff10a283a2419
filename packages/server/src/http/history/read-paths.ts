/**
 * How the history page names a value for the user to copy (ui README "Views", "Copy path"): the `read_state`
 * path (seed "Paths": `cwd[12].lazy.memory[3]`) where one exists — scope streams and the
 * effective view, keys inside the path grammar — and otherwise the CLI command that shows it.
 */
import { formatPath, isPathKey } from '@stateflow/core';
import type { PathStep, ScopeRoot } from '@stateflow/core';
import { STREAM_KINDS } from '@stateflow/http-contract';
import type { StreamKind } from '@stateflow/http-contract';

/** The kind of a stream id by its prefix (`cwd:/x` → `cwd`; unknown prefixes → `other`). */
export function streamKind(stream: string): StreamKind {
  if (stream === 'global') return 'global';
  const prefix = stream.slice(0, stream.indexOf(':'));
  return (STREAM_KINDS as readonly string[]).includes(prefix) && prefix !== 'global' && prefix !== 'other' ? (prefix as StreamKind) : 'other';
}

/** The `read_state` root of a scope stream (`global`, `cwd:*`, `session:*`), else `null`. */
export function scopeRoot(stream: string): ScopeRoot | null {
  const kind = streamKind(stream);
  return kind === 'global' || kind === 'cwd' || kind === 'session' ? kind : null;
}

/** One step below a node: an object key or an array index. */
export type NodeStep = { kind: 'key'; key: string } | { kind: 'index'; index: number };

/**
 * The `read_state` path of the value at `steps` of `root` at historical selector `at`
 * (`cwd[12].lazy.memory[3]`), or `null` when a key is outside the path grammar (`@babel/core`).
 */
export function readStatePath(root: ScopeRoot, at: number, steps: readonly NodeStep[]): string | null {
  if (steps.some((s) => s.kind === 'key' && !isPathKey(s.key))) return null;
  const pathSteps = steps.map((s): PathStep => (s.kind === 'key' ? { kind: 'key', key: s.key, column: 0 } : { kind: 'index', index: s.index, column: 0 }));
  return formatPath({ root, at, steps: pathSteps });
}

/** RFC 6901 pointer of `steps` (`/lazy/memory/3`). */
export function pointerOf(steps: readonly NodeStep[]): string {
  return steps.map((s) => `/${s.kind === 'index' ? String(s.index) : s.key.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** A shell-quoted argument. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@=-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The CLI command showing the value at `pointer` of `stream` at `rev`: `stateflow read` with the
 * `read_state` path where one exists, else the state at `rev` as a patch from the empty state
 * (`stateflow diff <stream> 0 <rev>`) with the pointer to look up in it.
 */
export function cliCommand(stream: string, rev: number, steps: readonly NodeStep[]): string {
  const root = scopeRoot(stream);
  const path = root === null ? null : readStatePath(root, rev, steps);
  if (path !== null && root !== null) {
    const owner = root === 'cwd' ? ` --cwd ${shellQuote(stream.slice(4))}` : root === 'session' ? ` --session ${shellQuote(stream.slice(8))}` : ' --global';
    return `stateflow${owner} read ${shellQuote(path)}`;
  }
  const pointer = pointerOf(steps);
  return `stateflow --json diff ${shellQuote(stream)} 0 ${rev}${pointer === '' ? '' : `  # then look up ${pointer}`}`;
}

/** The owners of an effective view, as query parameters name them. */
export interface Owners {
  /** `1` or `true` (the query's text; the schema admits nothing else). */
  global?: '1' | 'true';
  cwd?: string;
  session?: string;
}

/** The `stateflow` flags selecting `owners` (`--global --cwd /x`). */
export function ownerFlags(owners: Owners): string {
  return [owners.global !== undefined ? '--global' : '', owners.cwd === undefined ? '' : `--cwd ${shellQuote(owners.cwd)}`, owners.session === undefined ? '' : `--session ${shellQuote(owners.session)}`]
    .filter((f) => f !== '')
    .join(' ');
}
