import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_FACTS, ExitCode, HTTP_ERROR_STATUSES, errorTableMarkdown } from './error-facts.js';
import type { HttpErrorStatus } from './error-facts.js';
import { ErrorCode } from './errors.js';

const errorsMd = readFileSync(fileURLToPath(new URL('../errors.md', import.meta.url)), 'utf8');

describe('errors.md', () => {
  it('holds exactly the table generated from ERROR_FACTS (regenerate: node scripts/errors-doc.mjs)', () => {
    const table = /<!-- error-table:begin -->\n([\s\S]*)\n<!-- error-table:end -->/.exec(errorsMd)?.[1];
    expect(table).toBe(errorTableMarkdown());
  });

  it('documents exactly the codes of ErrorCode, each once', () => {
    expect(Object.keys(ERROR_FACTS).sort()).toEqual(Object.keys(ErrorCode).sort());
    const documented = errorsMd.split('\n').filter((line) => line.startsWith('| `')).map((line) => /^\| `([A-Z_]+)`/.exec(line)?.[1]);
    expect(documented).toEqual(Object.keys(ERROR_FACTS));
  });

  it('gives every code a meaning, details, and a status and exit code of its class', () => {
    for (const [code, f] of Object.entries(ERROR_FACTS)) {
      expect(f.meaning, code).toMatch(/\S{3}/);
      expect(f.details, code).toMatch(/^`\{/);
      expect(HTTP_ERROR_STATUSES, code).toContain(f.httpStatus);
      expect(Object.values(ExitCode).filter((exit) => exit !== ExitCode.OK), code).toContain(f.exitCode);
    }
  });

  it('uses every status of HTTP_ERROR_STATUSES (the list is exactly the statuses of the codes)', () => {
    expect([...new Set(Object.values(ERROR_FACTS).map((f) => f.httpStatus))].sort((a, b) => a - b)).toEqual([...HTTP_ERROR_STATUSES]);
  });

  it("gives each code an exit code of its status's class (errors.md \"Status and exit code\")", () => {
    const { FAILURE, USAGE, NOT_FOUND, CONFLICT, CORRUPT } = ExitCode;
    // The rule errors.md states; where a status has two classes, the table there says why.
    const classes: Record<HttpErrorStatus, readonly number[]> = {
      400: [USAGE],
      401: [FAILURE],
      403: [FAILURE],
      404: [NOT_FOUND],
      408: [FAILURE],
      409: [CONFLICT],
      410: [NOT_FOUND, CONFLICT],
      413: [USAGE],
      415: [USAGE],
      422: [USAGE],
      429: [FAILURE],
      431: [USAGE],
      500: [FAILURE, CORRUPT],
      501: [FAILURE],
      502: [FAILURE],
      503: [FAILURE, CONFLICT],
    };
    const outOfClass = Object.entries(ERROR_FACTS).filter(([, f]) => !classes[f.httpStatus].includes(f.exitCode));
    expect(outOfClass.map(([code, f]) => `${code}: HTTP ${f.httpStatus}, exit ${f.exitCode}`)).toEqual([]);
    const twoClasses = Object.entries(classes).filter(([, exits]) => exits.length > 1).map(([status]) => status);
    for (const status of twoClasses) expect(errorsMd, `errors.md says why ${status} has two exit codes`).toMatch(new RegExp(`^\\| ${status} \\|`, 'm'));
  });
});
