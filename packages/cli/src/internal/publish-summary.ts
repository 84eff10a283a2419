/**
 * One readable line describing a publish result (revert, fork, merge).
 */
import type { PublishResult } from '@stateflow/store';

/** "seq 7: cwd:/p rev 4" for an accepted transition, or `noop` when nothing changed. */
export function describePublish(result: { transition: PublishResult['transition'] }, noop: string): string {
  if (result.transition === null) return noop;
  const changes = result.transition.changes.map((change) => `${change.stream} rev ${change.rev}`).join(', ');
  return `seq ${result.transition.seq}: ${changes}`;
}
