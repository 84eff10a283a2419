import { defineConfig } from 'vitest/config';

// End-to-end tests spawn built binaries, servers and real stores on disk: generous timeouts.
// Each area has its own folder (cli/, …); `npx vitest run <folder>` runs one.
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Two files at once: the end-to-end files mostly wait on the processes they spawn, and vitest's
    // default (cores − 1) runs them one at a time on a 2-core machine.
    maxWorkers: 2,
  },
});
