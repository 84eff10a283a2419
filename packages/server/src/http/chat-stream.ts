/**
 * chat/completions with `stream: true`: one ladder call answered as Server-Sent Events of
 * OpenAI `chat.completion.chunk`s, on fastify's reply streaming.
 *
 * The response starts at the call's first content byte, so anything that fails before it
 * (a bad session, a model error in an earlier step, a gate still deciding) answers as a normal
 * JSON error with its status. From there: the role delta, the content deltas as the runner
 * produces them, then, when the call has ended, the final chunk (`finish_reason: "stop"`,
 * Stateflow's `stateflow` member), the usage chunk when `stream_options.include_usage` asked for
 * it, and `data: [DONE]`. A failure after the first byte is one `data: {"error": {code, type,
 * message, details}}` event (the body of the JSON error; the `openai` client throws it as an
 * `APIError`), and the stream ends without `[DONE]`.
 *
 * The call never depends on the client: one that disconnects mid-stream stops receiving, while
 * the call runs to its end and records its one transition, as if it had stayed.
 */
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { assistantMessage, chatUsage, completionId, stateflowMember } from './chat-completion.js';
import type { CompletionCall } from './chat-completion.js';
import type { HttpErrorBody } from './error-status.js';
import type { LadderCallResult } from './ladder-runtime.js';

/** How a streamed completion is answered. */
export interface StreamedCompletion {
  call: CompletionCall;
  /** `stream_options.include_usage`: every chunk carries `usage: null`, and a last chunk the usage. */
  includeUsage: boolean;
  /** The error body of a failure after the first byte (as the route would answer it, and logged alike). */
  failureBody: (err: unknown) => HttpErrorBody;
}

/** One Server-Sent Event carrying `value` as JSON. */
function event(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/**
 * Answer `reply` with the streamed completion of `run`, which starts the ladder call and gives
 * the runner's output to `onOutput`.
 * @throws whatever `run` throws before the call's first content byte (answered as JSON then).
 */
export async function streamChatCompletion(
  reply: FastifyReply,
  options: StreamedCompletion,
  run: (onOutput: (text: string) => void) => Promise<LadderCallResult>,
): Promise<FastifyReply> {
  const { call, includeUsage, failureBody } = options;
  const id = completionId();
  const created = Math.floor(call.now.getTime() / 1000);
  const chunk = (choices: object[], extra: object = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: call.model,
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const choice = (delta: object, finishReason: 'stop' | null = null) => [{ index: 0, delta, finish_reason: finishReason, logprobs: null }];

  const body = new PassThrough();
  // A client that went away only stops reading: the call goes on (see the module comment).
  body.on('error', () => undefined);
  let started = false;
  let ended = false;
  const write = (text: string) => {
    if (!ended && !body.destroyed) body.write(text);
  };
  const start = () => {
    started = true;
    write(event(chunk(choice({ role: 'assistant', content: '' }))));
  };
  const end = (last: string) => {
    if (!ended && !body.destroyed) body.end(last);
    ended = true;
  };
  const finish = (result: LadderCallResult) => {
    if (!started) start();
    // An aborted run's refusal is the one the non-streamed answer carries, as a delta.
    const { refusal } = assistantMessage(result.outcome);
    if (refusal !== null) write(event(chunk(choice({ refusal }))));
    write(event(chunk(choice({}, 'stop'), { stateflow: stateflowMember(result, call) })));
    const usage = chatUsage(result.usage);
    if (includeUsage && usage !== undefined) write(event(chunk([], { usage })));
    end('data: [DONE]\n\n');
  };
  const fail = (err: unknown) => end(event(failureBody(err)));

  let firstContent: () => void = () => undefined;
  const contentStarted = new Promise<'content'>((resolve) => (firstContent = () => resolve('content')));
  const running = run((text) => {
    if (ended) return;
    if (!started) {
      start();
      firstContent();
    }
    write(event(chunk(choice({ content: text }))));
  });
  const settled = running.then(() => 'done' as const);
  settled.catch(() => undefined); // a failure after the first byte is handled by `fail` below
  if ((await Promise.race([contentStarted, settled])) === 'done') finish(await running);
  else running.then(finish, fail);
  return reply
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('x-accel-buffering', 'no')
    .send(body);
}
