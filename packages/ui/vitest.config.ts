import { defineConfig } from 'vitest/config';

// Component tests (`*.test.tsx`) render with @testing-library/preact in happy-dom (each names its
// environment in a `@vitest-environment` comment); the pure tests (`*.test.ts`) run in Node.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: { include: ['src/**/*.test.ts', 'src/**/*.test.tsx'] },
});
