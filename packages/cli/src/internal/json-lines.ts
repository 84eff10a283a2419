/**
 * Streaming JSON Lines files (histories, exports) line by line, so a 40 MB file never sits in
 * memory as one string.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { StateflowError, isStateflowError } from '@stateflow/core/errors';
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
 * @param onBytes called before each line is yielded with the bytes of the file read so far
 *   (read ahead in chunks of 64 KiB), for progress by bytes
 * @throws INPUT_INVALID naming the file and line when a line is not JSON; NOT_FOUND when the
 *   file does not exist (translated at the CLI boundary).
 */
export async function* readJsonLines(file: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<JsonLine> {
  let line = 0;
  const input = createReadStream(file, 'utf8');
  for await (const text of textLines(file, input)) {
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
    onBytes?.(input.bytesRead);
    yield { line, value, chars: text.length };
  }
}

/** The lines of `input`, a stream of `file`; a read failure (e.g. EISDIR) carries the file's path. */
async function* textLines(file: string, input: ReadStream): AsyncGenerator<string> {
  try {
    yield* createInterface({ input, crlfDelay: Infinity });
  } catch (err) {
    throw withPath(err, file);
  }
}

/** Re-throw `err` with "line N of FILE: " in front of its message, keeping its code and details. */
export function atLine(err: unknown, file: string, line: number): unknown {
  if (!isStateflowError(err)) return err;
  return new StateflowError(err.code, `Line ${line} of ${file}: ${err.message}`, err.details, { cause: err });
}
