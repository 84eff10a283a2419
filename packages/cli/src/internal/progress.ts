/**
 * Progress bars for long work (audit, import, replay), drawn with `cli-progress` on stderr only
 * when stderr is an interactive terminal, so pipes and logs never receive control sequences.
 */
import cliProgress from 'cli-progress';
import type { CliIo } from '../cli-io.js';

/** Work below this many units finishes too fast to deserve a bar. */
const MIN_UNITS_FOR_BAR = 200;

/** A progress sink: `update(done)` with units done so far, `stop()` once at the end. */
export interface Progress {
  update(done: number): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

/**
 * Start a progress bar labelled `label` for `total` units, or a silent sink when stderr is not
 * a TTY or the work is short (fewer than 200 units).
 */
export function startProgress(io: CliIo, label: string, total: number): Progress {
  if (io.stderr.isTTY !== true || total < MIN_UNITS_FOR_BAR) return silent;
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: `${label} [{bar}] {percentage}% | {value}/{total} | eta {eta_formatted}`,
      clearOnComplete: true,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update(done) {
      bar.update(done);
    },
    stop() {
      bar.stop();
    },
  };
}
