/**
 * `POST /v1/{author}/{ladder}/chat/completions` (seeds/ladr-stateful-sessions.txt "Subsequent
 * ladder invocations reference the session id"; server README "chat/completions"): an
 * OpenAI-compatible request runs the ladder on its conversation (`input.context`,
 * `input.messages`, `input.system`: `conversation.ts`), answered as one `chat.completion` or,
 * with `stream: true`, as SSE chunks (`chat-stream.ts`).
 *
 * - `X-Session-Id`: run on that session's slates (serialised per session); writes persist.
 * - No header: fresh slates; nothing persists (the runner publishes nothing without a session).
 * - `local/` ladders: one slate stream in the local store, no session lifecycle.
 * - `If-Match: "<rev>"` (or `<rev>`): fail with 409 CONFLICT unless the slate stream is at `rev` when the call
 *   starts (checked inside the session's lock, so no other call can slip in between).
 */
import { StateflowError, elidePath } from '@stateflow/core';
import type { Store } from '@stateflow/store';
import { setWriterSurface } from '../observability/writer-scope.js';
import { LOCAL_SESSION, isLocalLadder, pausableModel, sessionSlateStream } from '@stateflow/slates';
import type { PauseCheckpoint } from '@stateflow/slates';
import { chatCompletionRoute } from '@stateflow/http-contract';
import type { RouteBody } from '@stateflow/http-contract';
import { runLadderCall } from '../ladder-runtime.js';
import type { LadderCallResult } from '../ladder-runtime.js';
import { chatCompletion, requireModel } from '../chat-completion.js';
import { streamChatCompletion } from '../chat-stream.js';
import { conversationInput } from '../conversation.js';
import type { ContractApp } from '../contract-app.js';
import type { ServerContext } from '../server-context.js';
import { assertSessionOfLadder, servedLadder } from './ladder-target.js';
import { USER_ROUTE } from '../access-gate.js';

/** An OpenAI chat completion request, as the contract validates it. */
type ChatBody = RouteBody<typeof chatCompletionRoute>;

/** Register the chat/completions route on `app`. */
export function registerChatRoute(app: ContractApp, context: ServerContext): void {
  app.route({
    ...chatCompletionRoute,
    config: USER_ROUTE,
    handler: async (request, reply) => {
      const entry = servedLadder(context, request.params);
      setWriterSurface('ladder', entry.id);
      const body = request.body;
      refuseTools(body);
      const input = conversationInput(body.messages);
      const model = requireModel(context, entry.id, body.model);
      const sessionId = headerValue(request.headers, 'x-session-id', 'X-Session-Id', 'send a session id, or omit the header for a call without a session');
      const ifMatch = parseIfMatch(headerValue(request.headers, 'if-match', 'If-Match', 'send a slate revision such as "3", or omit the header'));
      const user = request.user;
      // What a paused call records to run again after a restart (see the resume route).
      const recorded = { ...input, model: body.model };

      const call = async (session: string | undefined, onOutput?: (text: string) => void, control?: PauseCheckpoint): Promise<LadderCallResult> => {
        if (ifMatch !== undefined && session !== undefined) {
          await assertRevision(context.store, sessionSlateStream(entry.id, session), ifMatch);
        }
        const callModel = control === undefined ? model : pausableModel(model, control, recorded);
        return runLadderCall({ store: context.store, entry, session, input, model: callModel, clock: context.clock, observer: context.metrics.ladderObserver(entry.id), ...(onOutput === undefined ? {} : { onOutput }) });
      };

      // Which stream the call runs on, checked before anything runs or streams.
      let dispatch: (onOutput?: (text: string) => void) => Promise<LadderCallResult>;
      if (isLocalLadder(entry.id)) {
        if (sessionId !== undefined) {
          throw new StateflowError('INPUT_INVALID', `${entry.id} is a local ladder: local ladders have no sessions; omit X-Session-Id`, {
            field: 'X-Session-Id',
          });
        }
        dispatch = (onOutput) => context.sessions.serial(sessionSlateStream(entry.id, LOCAL_SESSION), () => call(LOCAL_SESSION, onOutput));
      } else if (sessionId !== undefined) {
        assertSessionOfLadder(await context.sessions.get(sessionId, user), entry.id);
        dispatch = (onOutput) => context.sessions.call(sessionId, user, (_record, control) => call(sessionId, onOutput, control));
      } else {
        if (ifMatch !== undefined) {
          throw new StateflowError('INPUT_INVALID', 'If-Match needs X-Session-Id: a call without a session has no revision to match', {
            field: 'If-Match',
          });
        }
        dispatch = (onOutput) => call(undefined, onOutput);
      }
      // One of the key's model-call slots, from dispatch to the call's end (model-call-limit.ts).
      const limited = (onOutput?: (text: string) => void): Promise<LadderCallResult> => context.modelCalls.run(request.keyId, () => dispatch(onOutput));
      const completionCall = { model: body.model, session: isLocalLadder(entry.id) ? null : (sessionId ?? null), ladder: entry.id };
      if (body.stream === true) {
        const streamed = {
          call: { ...completionCall, now: context.clock() },
          includeUsage: body.stream_options?.include_usage === true,
          failureBody: (err: unknown) => context.answerFailure(err, request).body,
        };
        return streamChatCompletion(reply, streamed, limited);
      }
      const result = await limited();
      if (result.rev !== null) void reply.header('etag', `"${result.rev}"`);
      return chatCompletion(result, { ...completionCall, now: context.clock() });
    },
  });
}

/**
 * Tools are not supported yet: a request that offers some is refused rather than answered as if
 * they were not there (an empty list, which many front ends send, is fine).
 * @throws INPUT_INVALID `{ field: 'tools' | 'functions', reason: 'unsupported' }`
 */
function refuseTools(body: ChatBody): void {
  for (const field of ['tools', 'functions'] as const) {
    if ((body[field]?.length ?? 0) > 0) {
      throw new StateflowError(
        'INPUT_INVALID',
        `${field} is not supported: a ladder's steps call the model without tools. Send the request without ${field} (an empty list is fine).`,
        { field, reason: 'unsupported' },
      );
    }
  }
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
