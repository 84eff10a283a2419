/**
 * The VALUE of a `--resolve …=VALUE` (merge, undo): `ours`, `theirs` or any JSON value (`null`
 * deletes the path; the string "ours" is `'"ours"'`).
 */
import { InvalidArgumentError } from 'commander';
import type { JsonValue, MergeResolution } from '@stateflow/core';

/** The resolution `raw` names; `where` names the conflict in the error. @throws InvalidArgumentError */
export function resolutionValue(raw: string, where: string): MergeResolution {
  if (raw === 'ours' || raw === 'theirs') return raw;
  try {
    return { value: JSON.parse(raw) as JsonValue };
  } catch {
    throw new InvalidArgumentError(`the value of ${where} must be ours, theirs or JSON (quote a string: '"text"').`);
  }
}
