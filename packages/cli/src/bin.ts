#!/usr/bin/env node
/**
 * The `stateflow` executable: runs the program on this process and exits with its code.
 */
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2));
