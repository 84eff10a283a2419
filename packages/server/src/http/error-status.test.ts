import { describe, expect, it } from 'vitest';
import { ErrorCode, StateflowError } from '@stateflow/core';
import { HTTP_STATUS_BY_CODE, toHttpError } from './error-status.js';

describe('HTTP_STATUS_BY_CODE', () => {
  it('maps every error code, with the statuses the server README names', () => {
    expect(Object.keys(HTTP_STATUS_BY_CODE).sort()).toEqual(Object.values(ErrorCode).sort());
    expect(HTTP_STATUS_BY_CODE.INPUT_INVALID).toBe(400);
    expect(HTTP_STATUS_BY_CODE.SESSION_NOT_FOUND).toBe(404);
    expect(HTTP_STATUS_BY_CODE.CONFLICT).toBe(409);
    expect(HTTP_STATUS_BY_CODE.SESSION_CLOSED).toBe(410);
    expect(HTTP_STATUS_BY_CODE.MODEL_UNAVAILABLE).toBe(503);
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
