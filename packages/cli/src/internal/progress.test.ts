/**
 * Progress is gated by time, not by the amount of work: on a terminal, nothing is drawn while the
 * work is younger than the delay (1 s), a bar is drawn once it is older, whatever it counts
 * (items, bytes, or nothing but time), each part of the work gets its own bar, and `stop()`
 * clears it. Off a terminal nothing is ever written. Fake timers stand in for the wait.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CliIo } from '../cli-io.js';
import { startProgress, withProgress } from './progress.js';

/** A terminal stderr that records what is written (cli-progress also moves the cursor on it). */
function terminal(isTTY: boolean, env: Record<string, string> = {}): { io: CliIo; written: () => string } {
  let text = '';
  const stderr = Object.assign(
    {
      isTTY,
      columns: 120,
      write: (chunk: string) => {
        text += chunk;
        return true;
      },
      cursorTo: () => true,
      clearLine: () => true,
      moveCursor: () => true,
      on: () => stderr,
      removeListener: () => stderr,
    },
    {},
  );
  const io: CliIo = { stdout: { write: () => true }, stderr, stdin: process.stdin, env, cwd: process.cwd() };
  return { io, written: () => text };
}

/** Let the dynamic import of cli-progress and the first render happen. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(1);
  await vi.dynamicImportSettled();
  await vi.advanceTimersByTimeAsync(1);
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('progress on a terminal', () => {
  it('draws nothing for work shorter than the delay, however many units it counts', async () => {
    const { io, written } = terminal(true);
    const progress = startProgress(io, 'import', { total: 100_000 });
    for (let i = 1; i <= 100_000; i += 1000) progress.update(i);
    await vi.advanceTimersByTimeAsync(999);
    progress.stop();
    await settle();
    expect(written()).toBe('');
  });

  it('draws a bar once the work is older than the delay, however few units it counts', async () => {
    const { io, written } = terminal(true);
    const progress = startProgress(io, 'import: reading', { unit: 'bytes', total: 38_000_000 });
    progress.update(17_300_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await settle();
    expect(written()).toContain('import: reading [');
    expect(written()).toContain('17.3 MB/38.0 MB');
    progress.phase('import: publishing', { total: 3 });
    progress.update(2);
    await settle();
    expect(written()).toContain('2/3');
    progress.stop();
  });

  it('shows the time spent for work with no measure (a compaction)', async () => {
    const { io, written } = terminal(true);
    const done = withProgress(io, 'compact', () => new Promise<string>((resolve) => setTimeout(() => resolve('compacted'), 3_000)));
    await vi.advanceTimersByTimeAsync(2_000);
    await settle();
    expect(written()).toMatch(/compact … 0 \| \d+s/);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(done).resolves.toBe('compacted');
  });

  it('honours STATEFLOW_PROGRESS_DELAY_MS (0 draws at once)', async () => {
    const { io, written } = terminal(true, { STATEFLOW_PROGRESS_DELAY_MS: '0' });
    const progress = startProgress(io, 'audit', { total: 2 });
    progress.update(1);
    await settle();
    expect(written()).toContain('audit [');
    progress.stop();
  });
});

describe('progress off a terminal', () => {
  it('writes nothing, however long the work runs', async () => {
    const { io, written } = terminal(false);
    const progress = startProgress(io, 'audit', { total: 10 });
    progress.update(5);
    await vi.advanceTimersByTimeAsync(60_000);
    await settle();
    progress.stop();
    expect(written()).toBe('');
  });
});
