/**
 * `@stateflow/ui`: the history browser page, built by Vite into static files that
 * `stateflow serve` serves at `/ui/`. This entry point tells the server where they are; the page
 * itself (`src/web/`) runs in the browser and reads the server's HTTP API, typed by the server's
 * contract (`@stateflow/http-contract`, types only).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute directory of the built page (`index.html` and `assets/`), with a trailing slash. */
export const uiAssetsDir: string = fileURLToPath(new URL('./web/', import.meta.url));

/** True when the page was built (`npm run build` in this package writes it). */
export function uiBuilt(): boolean {
  return existsSync(`${uiAssetsDir}index.html`);
}
