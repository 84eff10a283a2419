#!/usr/bin/env node
// The `stateflow` executable that npm links. It is a committed file, executable in git, not a
// build output: `npm ci` links bins before anything is built (a bin in dist/ is not there yet, so
// npm links nothing), and a rebuild writes dist/ files without the executable bit. The program
// itself is the built dist/bin.js.
try {
  await import('../dist/bin.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/bin.js')) throw err;
  process.stderr.write('stateflow: the CLI is not built yet; run "npm run build" in the checkout first [USAGE]\n');
  process.exitCode = 2;
}
