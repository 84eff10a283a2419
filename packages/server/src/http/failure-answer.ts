/**
 * The answer to a failed request (`ServerContext.answerFailure`): a 5xx is the server's fault, so
 * the answer says only what the caller can use — with the request id — and the log says the rest.
 */
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { elidePath } from '@stateflow/core';
import { toHttpError } from './error-status.js';
import type { HttpErrorBody } from './error-status.js';
import { loggedHeaders, redactUrl } from './log-redaction.js';

/** The status and body answering `err` for `request`; a 5xx is logged with its request id. */
export function answerFailure(err: unknown, request: FastifyRequest, log: Logger, bodyLimit: number): { status: number; body: HttpErrorBody } {
  const { status, body } = toHttpError(err, { bodyLimit, contentType: request.headers['content-type'] });
  if (status >= 500) {
    body.error.details = { ...(body.error.details as object), requestId: request.id };
    if (body.error.code === 'INTERNAL') body.error.message = `Internal server error; the server log has the details under request id ${request.id}.`;
    log.error(
      { reqId: request.id, method: request.method, url: elidePath(redactUrl(request.url)), headers: loggedHeaders(request.headers), code: body.error.code, status, err },
      body.error.message,
    );
  }
  return { status, body };
}
