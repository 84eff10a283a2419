import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_FACTS, ErrorCode, StateflowError } from '@stateflow/core';
import { HTTP_STATUS_BY_CODE, toHttpError } from './error-status.js';

describe('HTTP_STATUS_BY_CODE', () => {
  it('agrees with every status the server README states for a code ("404 `SESSION_NOT_FOUND`", "`503 REOPEN_REQUIRED`")', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const stated = [...readme.matchAll(/\*{0,2}(\d{3})\*{0,2} `([A-Z][A-Z_]+)`|`(\d{3}) ([A-Z][A-Z_]+)`/g)].map((m) => ({
      code: (m[2] ?? m[4]) as string,
      status: Number(m[1] ?? m[3]),
    }));
    // The README names most codes a client meets; a pattern that stopped matching would pass vacuously.
    expect(new Set(stated.map((s) => s.code)).size).toBeGreaterThanOrEqual(15);
    const codes = new Set<string>(Object.values(ErrorCode));
    expect(stated.filter((s) => !codes.has(s.code))).toEqual([]);
    expect(stated.filter((s) => HTTP_STATUS_BY_CODE[s.code as ErrorCode] !== s.status)).toEqual([]);
  });

  it('lists in the README\'s status table, row by row, exactly the codes of each status', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const table = /\| status \| codes \|\n\| --- \| --- \|\n((?:\|.*\n)+)/.exec(readme)?.[1] ?? '';
    const rows = table.trim().split('\n').map((row) => {
      const [, status = '', codes = ''] = /^\| (\d{3}) \| (.*) \|$/.exec(row) ?? [];
      return [Number(status), [...codes.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]).sort()] as const;
    });
    const byStatus = new Map<number, string[]>();
    for (const code of Object.values(ErrorCode)) byStatus.set(ERROR_FACTS[code].httpStatus, [...(byStatus.get(ERROR_FACTS[code].httpStatus) ?? []), code]);
    expect(new Map(rows)).toEqual(new Map([...byStatus].map(([status, codes]) => [status, codes.sort()])));
  });
});

describe('toHttpError', () => {
  it('keeps a StateflowError’s code, message and details', () => {
    const err = new StateflowError('CONFLICT', 'stale', { stream: 's', expected: 1, actual: 2 });
    expect(toHttpError(err)).toEqual({
      status: 409,
      body: { error: { code: 'CONFLICT', type: 'invalid_request_error', message: 'stale', details: { stream: 's', expected: 1, actual: 2 } } },
    });
  });

  it('turns a client error from fastify into INPUT_INVALID and anything else into INTERNAL without its message', () => {
    const validation = Object.assign(new Error('body must have required property messages'), { statusCode: 400, code: 'FST_ERR_VALIDATION' });
    expect(toHttpError(validation).status).toBe(400);
    expect(toHttpError(validation).body.error.code).toBe('INPUT_INVALID');
    expect(toHttpError(validation).body.error.message).toContain('messages');
    const internal = toHttpError(new Error('secret detail'));
    expect(internal.status).toBe(500);
    expect(internal.body.error).toMatchObject({ code: 'INTERNAL', type: 'server_error' });
    expect(internal.body.error.message).not.toContain('secret');
  });
});
