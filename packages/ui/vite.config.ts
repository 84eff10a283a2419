import { defineConfig } from 'vite';

// The page is served by `stateflow serve` under /ui/, from dist/web (see src/index.ts). JSX is
// compiled by Vite's own transform for Preact; everything is bundled: no CDN at run time.
export default defineConfig({
  root: 'src/web',
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: '../../dist/web', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 200 },
});
