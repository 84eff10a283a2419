/**
 * Progress for long work (cli README "Progress"): a `cli-progress` bar on stderr, drawn only
 * when stderr is an interactive terminal and only once the work has run longer than a moment
 * (1 s; `STATEFLOW_PROGRESS_DELAY_MS` sets another, `0` draws at once), so a quick command
 * prints nothing extra and pipes and logs never receive control sequences. The summary a
 * command prints when done is not part of it: the bar is cleared before the summary.
 *
 * Work is measured in items (transitions, entries) or bytes (of a file being read), with a total
 * when one is known; work with no measure (a compaction, a recovery) shows the time it has run.
 * `cli-progress` is loaded only when a bar is drawn.
 */
import type { SingleBar } from 'cli-progress';
import type { CliIo } from '../cli-io.js';

/** How long work runs before its bar is drawn, in ms, when the environment sets nothing. */
const DEFAULT_DELAY_MS = 1_000;

/** What the work is counted in. */
export type ProgressUnit = 'items' | 'bytes';

/** Options of {@link startProgress}. */
export interface ProgressOptions {
  /** Units of the whole work, when known (else the bar shows only the count or the time). */
  total?: number;
  /** Default `'items'`. */
  unit?: ProgressUnit;
}

/**
 * A progress sink: `update(done, total?)` with the units done so far; `phase(label, options)` when
 * the work moves on to a next part counted anew (an import reads its file in bytes, then
 * publishes in transitions: one wait of a second for the whole command, not one per part);
 * `stop()` at the end (more calls do nothing).
 */
export interface Progress {
  update(done: number, total?: number): void;
  phase(label: string, options?: ProgressOptions): void;
  stop(): void;
}

const silent: Progress = { update() {}, phase() {}, stop() {} };

/**
 * Start reporting progress of work labelled `label` (the command's name). Returns a silent sink
 * when stderr is not a terminal. `stop()` must be called (in a `finally`): it clears the bar.
 */
export function startProgress(io: CliIo, label: string, options: ProgressOptions = {}): Progress {
  if (io.stderr.isTTY !== true) return silent;
  let part = { label, unit: options.unit ?? 'items', total: options.total };
  let done = 0;
  let bar: SingleBar | undefined;
  let stopped = false;
  let drawn = false;
  const draw = async (): Promise<void> => {
    drawn = true;
    const { default: cliProgress } = await import('cli-progress');
    if (stopped) return;
    bar?.stop();
    bar = new cliProgress.SingleBar(
      { stream: io.stderr as NodeJS.WritableStream, format: barFormat(part.label, part.total !== undefined), clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(part.total ?? 0, done, amounts(part.unit, done, part.total));
  };
  const timer = setTimeout(() => void draw(), progressDelay(io.env));
  // The work keeps the process alive, never the wait for its bar.
  timer.unref();
  return {
    update(value, total) {
      done = value;
      if (total !== undefined && total !== part.total) {
        const layoutChanges = part.total === undefined;
        part.total = total;
        // A bar drawn before the total was known shows none: draw it again with one.
        if (layoutChanges && drawn && !stopped) void draw();
        else bar?.setTotal(total);
      }
      bar?.update(value, amounts(part.unit, done, part.total));
    },
    phase(next, nextOptions = {}) {
      part = { label: next, unit: nextOptions.unit ?? 'items', total: nextOptions.total };
      done = 0;
      // Once the first bar is up, each part gets its own at once (its layout may differ).
      if (drawn && !stopped) void draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      bar?.stop();
    },
  };
}

/** The bar's layout: with a total, how far and how long to go; without, how much and how long so far. */
function barFormat(label: string, hasTotal: boolean): string {
  return hasTotal ? `${label} [{bar}] {percentage}% | {done}/{all} | eta {eta_formatted}` : `${label} … {done} | {duration_formatted}`;
}

/** The `{done}` and `{all}` tokens: counts, or bytes in MB. */
function amounts(unit: ProgressUnit, done: number, total: number | undefined): { done: string; all: string } {
  const show = (n: number): string => (unit === 'bytes' ? `${(n / 1_000_000).toFixed(1)} MB` : String(n));
  return { done: show(done), all: total === undefined ? '?' : show(total) };
}

/** `STATEFLOW_PROGRESS_DELAY_MS` when it is a whole number of ms, else the default. */
function progressDelay(env: CliIo['env']): number {
  const text = env['STATEFLOW_PROGRESS_DELAY_MS'];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : DEFAULT_DELAY_MS;
}

/**
 * Run `work` with progress labelled `label` (see {@link startProgress}); the bar is cleared when
 * `work` settles, before the command prints its summary.
 */
export async function withProgress<T>(io: CliIo, label: string, work: (progress: Progress) => Promise<T>, options: ProgressOptions = {}): Promise<T> {
  const progress = startProgress(io, label, options);
  try {
    return await work(progress);
  } finally {
    progress.stop();
  }
}
