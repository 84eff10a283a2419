/**
 * Reading a JSON command argument given inline, as `@file`, or as `-` (stdin).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StateflowError } from '@stateflow/core/errors';
import { withPath } from './failure.js';
import { readAll, type CliIo } from '../cli-io.js';

/**
 * Parse `source` as JSON: `-` reads stdin, `@file` reads a file (relative to the working
 * directory), anything else is the JSON text itself.
 *
 * @param what - what the value is, for the error message (e.g. "patch").
 * @throws USAGE when the text is not JSON; NOT_FOUND when `@file` does not exist, USAGE when it
 *   is a directory (translated at the CLI boundary).
 */
export async function readJsonArgument(source: string, io: CliIo, what: string): Promise<unknown> {
  let text: string;
  let origin: string;
  if (source === '-') {
    text = await readAll(io.stdin);
    origin = 'stdin';
  } else if (source.startsWith('@')) {
    const file = path.resolve(io.cwd, source.slice(1));
    text = await readFile(file, 'utf8').catch((err: unknown) => {
      throw withPath(err, file);
    });
    origin = file;
  } else {
    text = source;
    origin = 'the argument';
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new StateflowError(
      'USAGE',
      `The ${what} in ${origin} is not valid JSON (${(err as Error).message}): pass a JSON object inline, as @file, or as - to read stdin.`,
      { reason: 'json' },
      { cause: err },
    );
  }
}
