/**
 * Argument parsers shared by commands; failures surface as USAGE errors (exit 2).
 */
import { InvalidArgumentError } from 'commander';

/** Parse a non-negative decimal integer (a revision or a seq). */
export function nonNegativeInt(value: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer.');
  return Number(value);
}

/** Parse a positive decimal integer (a count). */
export function positiveInt(value: string): number {
  const n = nonNegativeInt(value);
  if (n === 0) throw new InvalidArgumentError('expected a positive integer.');
  return n;
}
