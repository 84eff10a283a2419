#!/usr/bin/env node
/**
 * The `stateflow` executable: runs the program on this process and exits with its code.
 */
import { runCli } from './program.js';

let finished = false;
// A command whose work never settles would otherwise end silently with Node's exit code 13.
process.on('exit', () => {
  if (finished) return;
  process.stderr.write('stateflow: the command ended before its work completed (an operation never settled); please report this bug [INTERNAL]\n');
  process.exitCode = 1;
});
process.exitCode = await runCli(process.argv.slice(2));
finished = true;
