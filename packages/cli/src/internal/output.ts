/**
 * Writing results: compact JSON under `--json`, readable text otherwise.
 */
import type { CliIo } from '../cli-io.js';

/**
 * Write one result: `value` as one JSON line under `--json` (`format.json`, e.g. the run's
 * global options), else `text()` (default: indented JSON).
 */
export function emit(io: CliIo, format: { json: boolean }, value: unknown, text?: () => string): void {
  const { json } = format;
  io.stdout.write(json || text === undefined ? `${JSON.stringify(value, null, json ? undefined : 2)}\n` : `${text()}\n`);
}

/** Format rows as a left-aligned text table with a header row; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '))
    .join('\n');
}

/** Shorten `text` to at most `max` characters, marking the cut with "…". */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "1 stream", "3 streams". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
