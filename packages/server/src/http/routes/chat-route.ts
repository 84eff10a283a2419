/**
 * `POST /v1/{author}/{ladder}/chat/completions` (seeds/ladr-stateful-sessions.txt "Subsequent
 * ladder invocations reference the session id"; server README "chat/completions"): an OpenAI-compatible request runs the
 * ladder with the last user message as `input.context`.
 *
 * - `X-Session-Id`: run on that session's slates (serialised per session); writes persist.
 * - No header: fresh slates; nothing persists (the runner publishes nothing without a session).
 * - `local/` ladders: one slate stream in the local store, no session lifecycle.
 * - `If-Match: "<rev>"` (or `<rev>`): fail with 409 CONFLICT unless the slate stream is at `rev` when the call
 *   starts (checked inside the session's queue, so no other call can slip in between).
 */
import { StateflowError, elidePath } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { LOCAL_SESSION, isLocalLadder, pausableModel, sessionSlateStream } from '@stateflow/slates';
import type { PauseCheckpoint } from '@stateflow/slates';
import type { FastifyInstance } from 'fastify';
import { runLadderCall } from '../ladder-runtime.js';
import type { LadderCallResult } from '../ladder-runtime.js';
import { chatCompletion, requireModel } from '../chat-completion.js';
import { chatCompletionBodySchema, ladderParamsSchema } from '../schemas.js';
import type { ServerContext } from '../server-context.js';
import { assertSessionOfLadder, servedLadder } from './ladder-target.js';
import type { LadderParams } from './ladder-target.js';

/** The subset of an OpenAI chat completion request the server reads. */
interface ChatBody {
  model: string;
  messages: Array<{ role: string; content?: string | Array<{ type: 'text'; text: string }> | null }>;
  stream?: boolean;
}

/** Register the chat/completions route on `app`. */
export function registerChatRoute(app: FastifyInstance, context: ServerContext): void {
  app.post<{ Params: LadderParams; Body: ChatBody }>(
    '/v1/:author/:ladder/chat/completions',
    { schema: { params: ladderParamsSchema, body: chatCompletionBodySchema } },
    async (request, reply) => {
      const entry = servedLadder(context, request.params);
      const body = request.body;
      if (body.stream === true) {
        throw new StateflowError('INPUT_INVALID', 'stream: true is not supported; omit stream for one chat.completion response', { field: 'stream' });
      }
      const question = lastUserMessage(body);
      const model = requireModel(context.model, body.model);
      const sessionId = headerValue(request.headers, 'x-session-id', 'X-Session-Id', 'send a session id, or omit the header for a call without a session');
      const ifMatch = parseIfMatch(headerValue(request.headers, 'if-match', 'If-Match', 'send a slate revision such as "3", or omit the header'));
      const user = request.user;

      const call = async (session: string | undefined, control?: PauseCheckpoint): Promise<LadderCallResult> => {
        if (ifMatch !== undefined && session !== undefined) {
          await assertRevision(context.store, sessionSlateStream(entry.id, session), ifMatch);
        }
        const callModel = control === undefined ? model : pausableModel(model, control, { context: question, model: body.model });
        return runLadderCall({ store: context.store, entry, session, context: question, model: callModel, clock: context.clock });
      };

      let result: LadderCallResult;
      let session: string | null = null;
      if (isLocalLadder(entry.id)) {
        if (sessionId !== undefined) {
          throw new StateflowError('INPUT_INVALID', `${entry.id} is a local ladder: local ladders have no sessions; omit X-Session-Id`, {
            field: 'X-Session-Id',
          });
        }
        result = await context.sessions.serial(sessionSlateStream(entry.id, LOCAL_SESSION), () => call(LOCAL_SESSION));
      } else if (sessionId !== undefined) {
        session = sessionId;
        assertSessionOfLadder(await context.sessions.get(sessionId, user), entry.id);
        result = await context.sessions.call(sessionId, user, (_record, control) => call(sessionId, control));
      } else {
        if (ifMatch !== undefined) {
          throw new StateflowError('INPUT_INVALID', 'If-Match needs X-Session-Id: a call without a session has no revision to match', {
            field: 'If-Match',
          });
        }
        result = await call(undefined);
      }
      if (result.rev !== null) void reply.header('etag', `"${result.rev}"`);
      return chatCompletion(result, { model: body.model, session, ladder: entry.id, now: context.clock() });
    },
  );
}

/** The last user message's text; several text parts are joined with a newline. */
function lastUserMessage(body: ChatBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const message = body.messages[i];
    if (message?.role !== 'user') continue;
    const content = message.content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((part) => part.text).join('\n');
    return '';
  }
  throw new StateflowError('INPUT_INVALID', 'messages has no user message; the last user message is the ladder input (input.context)', {
    field: 'messages',
  });
}

/**
 * The trimmed value of header `name` (the first one when repeated), or `undefined` when absent.
 * @throws INPUT_INVALID when the header is present but empty: an empty header is a mistake,
 *   not an omission (an empty `X-Session-Id` must not become a call without a session).
 */
function headerValue(headers: Record<string, string | string[] | undefined>, name: string, shown: string, advice: string): string | undefined {
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === '') throw new StateflowError('INPUT_INVALID', `${shown} is empty; ${advice}.`, { field: shown, reason: 'empty' });
  return value;
}

/**
 * Parse `If-Match: "3"` or `If-Match: 3` into a slate revision: a non-negative safe integer
 * without leading zeros, optionally in double quotes (a strong entity tag, as the `ETag` the
 * server sends). Weak tags (`W/"3"`) are refused: a revision match is exact.
 * @throws INPUT_INVALID for anything else (unbalanced quotes, `W/`, `*`, lists, `1e23`, too large).
 */
function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const shown = JSON.stringify(elidePath(value));
  if (/^W\//i.test(value)) {
    throw new StateflowError('INPUT_INVALID', `If-Match ${shown} is a weak entity tag; a slate revision matches exactly: send a strong tag such as "3" (as in the ETag answered).`, {
      field: 'If-Match',
      reason: 'weak',
    });
  }
  const match = /^(?:"(0|[1-9]\d*)"|(0|[1-9]\d*))$/.exec(value);
  const digits = match?.[1] ?? match?.[2];
  const rev = digits === undefined ? Number.NaN : Number(digits);
  if (!Number.isSafeInteger(rev)) {
    throw new StateflowError(
      'INPUT_INVALID',
      `If-Match must be one slate revision, a non-negative integer written "3" or 3 (as in the ETag answered), got ${shown}.`,
      { field: 'If-Match', reason: 'format' },
    );
  }
  return rev;
}

async function assertRevision(store: Store, stream: string, expected: number): Promise<void> {
  const head = await store.head(stream);
  if (head.rev !== expected) {
    throw new StateflowError(
      'CONFLICT',
      `If-Match revision ${expected} is stale: the session's slates are at revision ${head.rev}; read them and retry`,
      { stream, expected, actual: head.rev },
    );
  }
}
