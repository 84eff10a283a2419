/**
 * Where an import may write (cli README "Commands": import): owner streams (`global`, `cwd:<absolute dir>`,
 * `session:<id>`) follow the agent surface's rules — the stream id must be the one the tools'
 * owner selection produces, and `--at` must start with a plane that owner's patches may write
 * (core `PLANES`; `response` only for a session). Other streams (`history:x`) are free-form.
 */
import path from 'node:path';
import { PLANES, StateflowError, isPlane, isStateflowError, type OwnerScope } from '@stateflow/core';
import type { Selection } from '@stateflow/tools';

const OWNER_SCOPES: readonly OwnerScope[] = ['global', 'cwd', 'session'];

/**
 * Check an import's stream and placement before anything is read or written.
 *
 * @param keys - the parsed `--at` keys (at least one).
 * @throws STREAM_INVALID for a malformed owner stream (`global:x`, `cwd:`, `cwd:relative`,
 *   `cwd:/a/../b`, `session:`); USAGE when `--at` does not start with a plane of that owner.
 */
export async function checkImportTarget(stream: string, keys: readonly string[]): Promise<void> {
  const scope = OWNER_SCOPES.find((s) => stream === s || stream.startsWith(`${s}:`));
  if (scope === undefined) return;
  const expected = await ownerStream(scope, stream);
  if (expected !== stream) {
    throw new StateflowError(
      'STREAM_INVALID',
      `Stream ${JSON.stringify(stream)} is not a well-formed ${scope} stream${expected === null ? '' : ` (did you mean ${expected}?)`}: owner streams are global, cwd:/abs/dir (an absolute, normalized directory) and session:ID.`,
      { stream },
    );
  }
  const plane = keys[0] ?? '';
  if (!isPlane(plane) || (plane === 'response' && scope !== 'session')) {
    const planes = PLANES.filter((p) => p !== 'response' || scope === 'session').join(', ');
    throw new StateflowError(
      'USAGE',
      `--at ${JSON.stringify(keys.join('.'))} must start with a plane of the ${scope} owner (${planes}), e.g. --at lazy.history; streams other than global, cwd: and session: take any --at.`,
      { at: keys.join('.'), stream },
    );
  }
}

/** The stream the tools' owner selection gives for the owner `stream` names, or null when it names none. */
async function ownerStream(scope: OwnerScope, stream: string): Promise<string | null> {
  const id = stream.slice(scope.length + 1);
  if (scope === 'cwd' && !path.isAbsolute(id)) return null;
  const selection: Selection =
    scope === 'global' ? { global: true, mode: 'active' } : scope === 'cwd' ? { cwd: id, mode: 'active' } : { session: id, mode: 'active' };
  const { selectedOwners } = await import('@stateflow/tools');
  try {
    return selectedOwners(selection)[0]?.stream ?? null;
  } catch (err) {
    if (isStateflowError(err, 'INPUT_INVALID')) return null;
    throw err;
  }
}
