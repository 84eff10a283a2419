/**
 * The `stateflow` process: runs the program on this process and exits with its code. The
 * executable npm links is `bin/stateflow.js`, which imports this module.
 */

const args = process.argv.slice(2);
// Every command but `stop` and `ladder validate` opens a store, whose modules (the store's and
// LevelDB's) take longest to load: when a word names a command, start loading them now, while
// commander parses (a hint: a wrong guess costs a little time, never a different result).
if (args.some((arg) => !arg.startsWith('-'))) import('@stateflow/store-leveldb').catch(() => undefined);
const { runCli } = await import('./program.js');

let finished = false;

// A reader that stops early (`stateflow export | head`) closes the pipe: stop quietly, as
// command-line tools do, instead of crashing on EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  finished = true;
  process.exit(0);
});
// A command whose work never settles would otherwise end silently with Node's exit code 13.
// (Node reports that case to 'exit' listeners as code 0 and then exits with 13; crashes keep theirs.)
process.on('exit', (code) => {
  if (finished || code !== 0) return;
  process.stderr.write('stateflow: the command ended before its work completed (an operation never settled); please report this bug [INTERNAL]\n');
  process.exitCode = 1;
});
process.exitCode = await runCli(args);
finished = true;
