/**
 * The wire codec both ways: every code's error survives encode → JSON → decode as itself, and a
 * body that is not a Stateflow error answer — no error object, an unknown code, details that do
 * not fit the code — decodes to the problem, never to a mistyped error.
 */
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ERROR_FACTS, ErrorCode, isStateflowError } from '@stateflow/core';
import { ERROR_DETAILS } from './error-details.js';
import { decodeWireError, encodeWireError } from './wire-error.js';

/** What the client receives: the body through JSON text. */
function overTheWire(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body));
}

describe('encodeWireError / decodeWireError', () => {
  it("decodes each code's error answer as that error, and encodes it back with the facts' status", () => {
    for (const code of Object.values(ErrorCode)) {
      const type = ERROR_FACTS[code].httpStatus >= 500 ? 'server_error' : 'invalid_request_error';
      const body = { error: { code, type, message: `failed with ${code}`, details: Value.Create(ERROR_DETAILS[code]) } };
      const decoded = decodeWireError(overTheWire(body));
      if (!decoded.ok) throw new Error(`${code}: ${decoded.problem}`);
      expect(isStateflowError(decoded.error, code), code).toBe(true);
      const encoded = encodeWireError(decoded.error);
      expect(encoded.status, code).toBe(ERROR_FACTS[code].httpStatus);
      expect(overTheWire(encoded.body), code).toEqual(overTheWire(body));
    }
  });

  it('keeps details the server adds to a 5xx answer (requestId) and a conflict as typed', () => {
    const decoded = decodeWireError({ error: { code: 'STORE_CLOSED', message: 'closed', details: { requestId: 'r-1' } } });
    expect(decoded.ok && decoded.error.details).toEqual({ requestId: 'r-1' });
    const conflict = decodeWireError({ error: { code: 'CONFLICT', message: 'stale', details: { stream: 's', expected: 'none', actual: 2 } } });
    expect(conflict.ok && isStateflowError(conflict.error, 'CONFLICT') && conflict.error.details.actual).toBe(2);
  });

  it('refuses a body that is not a Stateflow error answer, saying why', () => {
    expect(decodeWireError(null)).toEqual({ ok: false, problem: expect.stringContaining('is not a Stateflow error body') });
    expect(decodeWireError({ error: 'boom' })).toEqual({ ok: false, problem: expect.stringContaining('is not a Stateflow error body') });
    expect(decodeWireError({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable' } })).toEqual({
      ok: false,
      problem: 'names the unknown error code -32000',
    });
    expect(decodeWireError({ error: { code: 'NOT_A_CODE', message: 'x' } })).toEqual({ ok: false, problem: 'names the unknown error code "NOT_A_CODE"' });
    expect(decodeWireError({ error: { code: 'toString', message: 'x' } })).toEqual({ ok: false, problem: 'names the unknown error code "toString"' });
  });

  it('refuses details that do not fit the code, naming the member at fault', () => {
    const decoded = decodeWireError({ error: { code: 'CONFLICT', message: 'stale', details: { stream: 's', expected: 1, actual: 'two' } } });
    expect(decoded).toEqual({ ok: false, problem: expect.stringMatching(/^carries details that do not fit CONFLICT: \/actual /) });
    expect(decodeWireError({ error: { code: 'PATCH_INVALID', message: 'x', details: { reason: 'no-such-reason', at: '' } } }).ok).toBe(false);
    expect(decodeWireError({ error: { code: 'SESSION_NOT_FOUND', message: 'x', details: [] } }).ok).toBe(false);
  });

  it('reads absent details as {} (a code without details) and an absent message as the code', () => {
    const decoded = decodeWireError({ error: { code: 'UNAUTHORIZED' } });
    expect(decoded.ok && decoded.error.toJSON()).toEqual({ code: 'UNAUTHORIZED', message: 'UNAUTHORIZED', details: {} });
  });
});
