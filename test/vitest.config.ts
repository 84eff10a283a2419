import { defineConfig } from 'vitest/config';

/**
 * End-to-end files that each take half a minute to two minutes on a loaded 2-core machine
 * (measured with vitest's JSON reporter: each spawns dozens of servers, CLI processes, a packed
 * install or the Python client's suite). `npm test`
 * leaves them out so it keeps under ten minutes; `npm run test:deep` runs them with the rest and
 * `npm run test:slow` runs them alone (CI's `.ci/run` runs it after `npm test`).
 * `STATEFLOW_E2E` picks the tier: `fast` (default), `slow` or `all`.
 */
const slowFiles = [
  'multiprocess/many-agents.test.ts',
  'install/pack-install.test.ts',
  'cli/postgres-store.test.ts',
  'multiprocess/watch.test.ts',
  'cli/histories.test.ts',
  'harness/harness.test.ts',
  'multiprocess/background-server.test.ts',
  'multiprocess/cli-through-server.test.ts',
  'python/python-client.test.ts',
  'cli/merge.test.ts',
  'cli/undo-tags.test.ts',
  'cli/retain.test.ts',
  'cli/commands.test.ts',
  'cli/sessions.test.ts',
  'cli/trial-findings.test.ts',
  'conformance/remote-store.test.ts',
];

const tier = process.env.STATEFLOW_E2E ?? 'fast';
if (!['fast', 'slow', 'all'].includes(tier)) {
  throw new Error(`STATEFLOW_E2E must be fast, slow or all (got ${JSON.stringify(tier)})`);
}

// End-to-end tests spawn built binaries, servers and real stores on disk: generous timeouts.
// Each area has its own folder (cli/, …); `npx vitest run <folder>` runs one.
export default defineConfig({
  test: {
    include: tier === 'slow' ? slowFiles : ['**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(tier === 'fast' ? slowFiles : [])],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Two files at once: the end-to-end files mostly wait on the processes they spawn, and vitest's
    // default (cores − 1) runs them one at a time on a 2-core machine.
    maxWorkers: 2,
  },
});
