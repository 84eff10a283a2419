/**
 * Readable summary of an import (shared by `import` and `import-git`).
 */
import type { ImportReport } from './history-import.js';
import { count } from './output.js';

/** "imported 3 revisions into cwd:/p at lazy.history: rev 1..3; skipped 1: …". */
export function describeImport(report: ImportReport): string {
  const created =
    report.from === null
      ? `imported nothing into ${report.stream} at ${report.at}`
      : `imported ${count(report.imported, 'revision')} into ${report.stream} at ${report.at}: rev ${report.from}..${report.to}`;
  if (report.skipped.length === 0) return created;
  const skipped = report.skipped.map((entry) => `  skipped ${entry.source}: ${entry.reason}`);
  return [`${created}; skipped ${report.skipped.length}`, ...skipped].join('\n');
}
