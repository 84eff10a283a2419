/**
 * Streaming JSON Lines files (histories, exports) line by line, so a 40 MB file never sits in
 * memory as one string.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { StateflowError, isStateflowError } from '@stateflow/core';
import { withPath } from './failure.js';

/** One parsed line: its 1-based line number, value, and length in characters. */
export interface JsonLine {
  line: number;
  value: unknown;
  chars: number;
}

/**
 * Yield each non-blank line of `file` parsed as JSON.
 *
 * @throws INPUT_INVALID naming the file and line when a line is not JSON; NOT_FOUND when the
 *   file does not exist (translated at the CLI boundary).
 */
export async function* readJsonLines(file: string): AsyncGenerator<JsonLine> {
  let line = 0;
  for await (const text of textLines(file)) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new StateflowError(
        'INPUT_INVALID',
        `Line ${line} of ${file} is not JSON (${(err as Error).message}): fix or remove that line.`,
        { field: `line ${line}`, reason: 'json' },
        { cause: err },
      );
    }
    yield { line, value, chars: text.length };
  }
}

/** Count the non-blank lines of a JSON Lines file (for progress totals). */
export async function countJsonLines(file: string): Promise<number> {
  let count = 0;
  for await (const text of textLines(file)) if (text.trim() !== '') count++;
  return count;
}

/** The lines of `file`; a read failure (e.g. EISDIR) carries the file's path. */
async function* textLines(file: string): AsyncGenerator<string> {
  try {
    yield* createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  } catch (err) {
    throw withPath(err, file);
  }
}

/** Re-throw `err` with "line N of FILE: " in front of its message, keeping its code and details. */
export function atLine(err: unknown, file: string, line: number): unknown {
  if (!isStateflowError(err)) return err;
  return new StateflowError(err.code, `Line ${line} of ${file}: ${err.message}`, err.details, { cause: err });
}
