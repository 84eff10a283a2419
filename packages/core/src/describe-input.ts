/**
 * How an error message names a caller's value (every package's `INPUT_INVALID` messages say what
 * they got, the same way): short, and safe for any value.
 */

/**
 * A short description of any caller value for an error message: a string quoted (its first 80
 * characters, then `…`), a BigInt as `5n`, numbers, booleans, `undefined` and symbols as
 * `String` gives them, otherwise `null`, `a function`, `an array` or `an object`. Never throws
 * (BigInt, symbols, Proxies and null-prototype objects included: nothing is read from them).
 */
export function describeInput(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
    case 'bigint':
      return `${value}n`;
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'symbol':
      return String(value);
    case 'function':
      return 'a function';
    default:
      return value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object';
  }
}
