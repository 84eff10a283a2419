/**
 * `npm run bench`: every benchmark in sequence, each in its own process. Each prints one table
 * (scale.mjs prints three) and appends it to bench/RESULTS.md. BENCH_SCALE=0.01 shrinks sizes.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = ['append.mjs', 'shapes.mjs', 'scaling.mjs', 'metrics-overhead.mjs', 'historical-read.mjs', 'storage.mjs', 'scale.mjs', 'request-stall.mjs', 'postgres.mjs', 'mcp-transport.mjs', 'langgraph.mjs', 'langgraph-put-parts.mjs', 'history-page.mjs', 'undo.mjs', 'retention.mjs', 'cli-startup.mjs', 'python-client.mjs'].filter((b) => only.length === 0 || only.some((o) => b.startsWith(o)));
for (const bench of benches) {
  console.log(`\n=== ${bench} ===`);
  execFileSync(process.execPath, ['--expose-gc', path.join(here, bench)], { stdio: 'inherit' });
}
