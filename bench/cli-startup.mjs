/**
 * CLI start-up: the whole-process wall time of `stateflow --version` and of `stateflow log` on a
 * store of 2 transitions, against a bare `node -e 0` measured in the same rounds (each round runs
 * every command once, in turn, so a change of the machine's speed hits all of them alike).
 * Reported: the median wall time of each command and the median of its per-round ratio to
 * `node -e 0`. Goals: `--version` ≤ 2×, `log` ≤ 3×.
 *
 * `STATEFLOW_BIN_BEFORE=/path/to/other/checkout/packages/cli/dist/bin.js` adds the same two
 * commands of another build (the one before a change) to every round, for a before/after table
 * from one run. `BENCH_ROUNDS` sets the rounds (default 15).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { median, removeDir, report, tempDir } from './lib.mjs';

const BIN = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../packages/cli/dist/bin.js');
const BEFORE = process.env.STATEFLOW_BIN_BEFORE;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

const dir = await tempDir('cli-startup');
const store = path.join(dir, 'store');
for (const n of [1, 2]) run([BIN, '--dir', store, '--cwd', '/bench', 'patch', JSON.stringify({ lazy: { n } })]);

/** Wall milliseconds of one `node …args` run (it must exit 0). */
function run(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const commands = [['node -e 0', ['-e', '0']]];
for (const [label, bin] of [...(BEFORE === undefined ? [] : [['before', BEFORE]]), ['after', BIN]]) {
  const tag = BEFORE === undefined ? '' : ` (${label})`;
  commands.push([`stateflow --version${tag}`, [bin, '--version']], [`stateflow log, 2 transitions${tag}`, [bin, '--dir', store, 'log']]);
}
// One unmeasured round warms the file cache.
for (const [, args] of commands) run(args);
const times = new Map(commands.map(([label]) => [label, []]));
const ratios = new Map(commands.map(([label]) => [label, []]));
for (let round = 0; round < ROUNDS; round++) {
  const base = run(commands[0][1]);
  times.get(commands[0][0]).push(base);
  ratios.get(commands[0][0]).push(1);
  for (const [label, args] of commands.slice(1)) {
    const ms = run(args);
    times.get(label).push(ms);
    ratios.get(label).push(ms / base);
  }
}
await removeDir(dir);

const goal = (label) => (label.includes('--version') ? '≤ 2' : label.includes('log') ? '≤ 3' : '');
await report(
  'CLI start-up: stateflow --version and log vs node -e 0',
  ['command', 'wall ms (median)', '× node -e 0 (median of rounds)', 'goal ×'],
  commands.map(([label]) => [label, median(times.get(label)), median(ratios.get(label)), goal(label)]),
  [`${ROUNDS} rounds, each running every command once in turn (spawnSync, output piped and discarded); ratios are taken within a round.`],
);
