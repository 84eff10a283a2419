/**
 * `@stateflow/ui`: the history browser page, built by Vite into static files that
 * `stateflow serve` serves at `/ui/`. This entry point tells the server where they are and gives
 * the JSON shapes of the history endpoints the page reads (types only); the page itself
 * (`src/web/`) runs in the browser and reads the server's HTTP API.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute directory of the built page (`index.html` and `assets/`), with a trailing slash. */
export const uiAssetsDir: string = fileURLToPath(new URL('./web/', import.meta.url));

/** True when the page was built (`npm run build` in this package writes it). */
export function uiBuilt(): boolean {
  return existsSync(`${uiAssetsDir}index.html`);
}
export type {
  DiffEntry,
  DiffResult,
  EffectiveNode,
  Histogram,
  HistogramBucket,
  NodeChild,
  NodePage,
  PathChange,
  PathHistoryPage,
  RevisionPage,
  RevisionRow,
  Scope,
  ShownValue,
  SlateFileView,
  SlatesAtCall,
  SlateView,
  StreamKind,
  StreamNode,
  StreamPage,
  StreamRow,
  StructuralDiff,
  ValueSummary,
} from './history-api.js';
