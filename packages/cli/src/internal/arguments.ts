/**
 * Argument parsers shared by commands; failures surface as USAGE errors (exit 2).
 */
import { InvalidArgumentError } from 'commander';

/**
 * Parse a non-negative decimal integer (a revision or a seq) no larger than 2^53 − 1, so the
 * number used is exactly the text given (commander's message quotes that text).
 */
export function nonNegativeInt(value: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer.');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer no larger than ${Number.MAX_SAFE_INTEGER}.`);
  return n;
}

/** Parse a positive decimal integer (a count). */
export function positiveInt(value: string): number {
  const n = nonNegativeInt(value);
  if (n === 0) throw new InvalidArgumentError('expected a positive integer.');
  return n;
}

/** A parser for an option whose value must not be empty (`--cwd ''` is a mistake, not "here"). */
export function nonEmpty(what: string): (value: string) => string {
  return (value) => {
    if (value === '') throw new InvalidArgumentError(`expected ${what}, got an empty string.`);
    return value;
  };
}
