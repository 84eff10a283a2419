import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The official checkpointer validation suite's spec functions call vitest's globals.
    globals: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
