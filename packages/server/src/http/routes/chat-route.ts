/**
 * `POST /v1/{author}/{ladder}/chat/completions` (seeds/ladr-stateful-sessions.txt "Subsequent
 * ladder invocations reference the session id"; issue 6): an OpenAI-compatible request runs the
 * ladder with the last user message as `input.context`.
 *
 * - `X-Session-Id`: run on that session's slates (serialised per session); writes persist.
 * - No header: fresh slates; nothing persists (the runner publishes nothing without a session).
 * - `local/` ladders: one slate stream in the local store, no session lifecycle.
 * - `If-Match: <rev>`: fail with 409 CONFLICT unless the slate stream is at `rev` when the call
 *   starts (checked inside the session's queue, so no other call can slip in between).
 */
import { StateflowError } from '@stateflow/core';
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
  messages: Array<{ role: string; content?: string | Array<{ type?: string; text?: string }> | null }>;
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
      const sessionId = headerValue(request.headers['x-session-id']);
      const ifMatch = parseIfMatch(headerValue(request.headers['if-match']));
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

function lastUserMessage(body: ChatBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const message = body.messages[i];
    if (message?.role !== 'user') continue;
    const content = message.content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((part) => (part.type === 'text' || part.type === undefined ? (part.text ?? '') : '')).join('');
    return '';
  }
  throw new StateflowError('INPUT_INVALID', 'messages has no user message; the last user message is the ladder input (input.context)', {
    field: 'messages',
  });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** Parse `If-Match: 3`, `"3"` or `W/"3"` into a revision. */
function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(value);
  if (match?.[1] === undefined) {
    throw new StateflowError('INPUT_INVALID', `If-Match must be a slate revision such as "3", got ${JSON.stringify(value)}`, { field: 'If-Match' });
  }
  return Number(match[1]);
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
