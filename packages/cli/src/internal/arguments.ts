/**
 * Argument parsers shared by commands; failures surface as USAGE errors (exit 2).
 */
import { createRequire } from 'node:module';
import { InvalidArgumentError } from 'commander';
import type msFunction from 'ms';

/** `ms` (CommonJS), loaded by the first duration parsed: only `serve` takes durations. */
let ms: typeof msFunction | undefined;

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

/**
 * A parser for a duration option, in milliseconds: `ms` notation (`90s`, `12h`, `30d`, `1.5h`; a
 * bare number is milliseconds), `0` only with `allowZero`, and `forever` (→ `Infinity`) only
 * with `allowForever`.
 */
export function duration(options: { allowZero: boolean; allowForever: boolean }): (value: string) => number {
  const forms = `a duration such as 90s, 12h or 30d${options.allowZero ? ', 0' : ''}${options.allowForever ? ' or forever' : ''}`;
  return (value) => {
    if (options.allowForever && value === 'forever') return Infinity;
    ms ??= createRequire(import.meta.url)('ms') as typeof msFunction;
    const parsed = /^\s*\d/.test(value) ? ms(value as msFunction.StringValue) : Number.NaN;
    if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed < 0 || (parsed === 0 && !options.allowZero)) {
      throw new InvalidArgumentError(`expected ${forms}.`);
    }
    return parsed;
  };
}

/**
 * Parse a request rate `N/DURATION` (`600/1m`, `10/1s`; the duration in `ms` notation) into
 * `{ requests, windowMs }`, or `off` into `false`.
 */
export function requestRate(value: string): { requests: number; windowMs: number } | false {
  if (value === 'off') return false;
  const [count, window, ...rest] = value.split('/');
  const invalid = new InvalidArgumentError('expected requests per duration such as 600/1m or 10/1s, or off.');
  if (count === undefined || window === undefined || rest.length > 0) throw invalid;
  try {
    return { requests: positiveInt(count), windowMs: duration({ allowZero: false, allowForever: false })(window) };
  } catch {
    throw invalid;
  }
}

/** Byte units of {@link byteSize}: powers of 1,024. */
const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** Parse a size in bytes: an integer with an optional unit `B`, `KB`, `MB`, `GB` (powers of 1,024; `10MB`), at least 1. */
export function byteSize(value: string): number {
  const match = /^([1-9][0-9]*)\s*([KMG]?B)?$/i.exec(value.trim());
  const n = match === null ? Number.NaN : Number(match[1]) * (BYTE_UNITS[(match[2] ?? '').toUpperCase()] as number);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a size such as 512KB or 10MB (powers of 1,024).');
  return n;
}

/** Units of {@link formatDuration}, largest first. */
const UNITS: ReadonlyArray<[string, number]> = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1_000]];

/**
 * A duration in milliseconds in the largest unit that holds it exactly (`30d`, `90m`, `1500ms`;
 * `ms` itself would round 90 minutes to `2h`), or `forever`.
 */
export function formatDuration(milliseconds: number): string {
  if (milliseconds === Infinity) return 'forever';
  const unit = UNITS.find(([, size]) => milliseconds > 0 && milliseconds % size === 0);
  return unit === undefined ? `${milliseconds}ms` : `${milliseconds / unit[1]}${unit[0]}`;
}

/** A revision or seq as typed, or a tag (store README "Tags"): tags start with a letter, so a number is never one. */
export type NumberOrTag = number | { tag: string };

/** Parse a non-negative integer, or a tag name (`[A-Za-z][A-Za-z0-9_.-]*`). */
export function numberOrTag(value: string): NumberOrTag {
  if (/^[A-Za-z][A-Za-z0-9_.-]{0,127}$/.test(value)) return { tag: value };
  try {
    return nonNegativeInt(value);
  } catch {
    throw new InvalidArgumentError('expected a non-negative integer or a tag (before-cleanup).');
  }
}

/** `--shape stored|current|N` of the reading commands (store README "Shapes"). */
export function shapeOption(value: string): 'stored' | 'current' | number {
  if (value === 'stored' || value === 'current') return value;
  if (/^[1-9][0-9]*$/.test(value)) return Number(value);
  throw new InvalidArgumentError('expected stored, current or a version number ≥ 1.');
}
