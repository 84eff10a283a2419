/**
 * The process surface a CLI run uses, injectable so tests can run the program in-process.
 */

/** A writable text stream; `isTTY` decides whether progress bars are drawn. */
export interface CliOutput {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** Streams, environment and working directory of one CLI run. */
export interface CliIo {
  /** Results: JSON, tables, receipts. */
  stdout: CliOutput;
  /** Error lines, progress bars and notes. */
  stderr: CliOutput;
  /** Source for `patch -`. */
  stdin: NodeJS.ReadableStream;
  /** Environment (reads `STATEFLOW_DIR`). */
  env: Record<string, string | undefined>;
  /** Directory relative paths resolve against (absolute). */
  cwd: string;
}

/** The real process's {@link CliIo}. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Read a whole readable stream as UTF-8 text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
