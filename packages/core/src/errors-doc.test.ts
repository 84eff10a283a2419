import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_FACTS, errorTableMarkdown } from './error-facts.js';
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
      expect([400, 401, 403, 404, 408, 409, 410, 413, 415, 422, 429, 431, 500, 502, 503], code).toContain(f.httpStatus);
      expect([1, 2, 3, 4, 5], code).toContain(f.exitCode);
    }
  });
});
