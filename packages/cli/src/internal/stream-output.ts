/**
 * Writing many lines to stdout while honouring back-pressure (exports can be large).
 */
import type { CliOutput } from '../cli-io.js';

/** Write `line` plus a newline; waits for `drain` when the stream's buffer is full. */
export async function writeLine(out: CliOutput, line: string): Promise<void> {
  const flushed = out.write(`${line}\n`);
  const emitter = out as Partial<NodeJS.WritableStream>;
  if (flushed === false && typeof emitter.once === 'function') {
    await new Promise<void>((resolve) => emitter.once?.('drain', () => resolve()));
  }
}
