/**
 * A fake OpenAI-compatible upstream on loopback for tests: answers `POST …/chat/completions`
 * with whatever `respond` returns (or resolves to) for the request — as one `chat.completion`, or,
 * for `stream: true`, as Server-Sent Events of `chat.completion.chunk`s (role, one chunk per word,
 * finish, and the usage chunk when `stream_options.include_usage` asks) — and records every
 * request it received with the usage it reported.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** OpenAI's usage object. */
export interface UpstreamUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The part of an OpenAI chat completion request the fake reads, plus what it answered. */
export interface UpstreamRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  authorization: string | undefined;
  /** The usage the fake reported for this request (`null`: it reported none). */
  reported?: UpstreamUsage | null;
}

/** A full answer: content, the usage to report (default: derived from the sizes; `null`: none), pacing. */
export interface UpstreamAnswer {
  content: string;
  usage?: UpstreamUsage | null;
  /** Streamed answers wait for this after their first word (to hold a stream open mid-way). */
  afterFirstPiece?: Promise<void>;
  /** Answer with this HTTP status and an error body instead. */
  status?: number;
}

/** A running fake upstream. */
export interface FakeUpstream {
  /** Base URL to use as OPENAI_BASE_URL, ending in `/v1`. */
  baseUrl: string;
  /** Every request received, in arrival order. */
  requests: UpstreamRequest[];
  close(): Promise<void>;
}

/** The usage the fake reports by default: distinct, checkable numbers per request. */
function derivedUsage(request: UpstreamRequest, content: string): UpstreamUsage {
  const prompt = request.messages.reduce((sum, m) => sum + m.content.length, 0);
  return { prompt_tokens: prompt, completion_tokens: content.length, total_tokens: prompt + content.length };
}

/** Start a fake upstream on 127.0.0.1 with a free port. */
export async function startFakeUpstream(
  respond: (request: UpstreamRequest) => string | UpstreamAnswer | Promise<string | UpstreamAnswer>,
): Promise<FakeUpstream> {
  const requests: UpstreamRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<UpstreamRequest, 'authorization'>;
      const request: UpstreamRequest = { ...body, authorization: req.headers.authorization };
      requests.push(request);
      const id = `chatcmpl-fake-${requests.length}`;
      void Promise.resolve(respond(request)).then(async (answered) => {
        const answer: UpstreamAnswer = typeof answered === 'string' ? { content: answered } : answered;
        if (answer.status !== undefined) {
          request.reported = null;
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `fake failure ${answer.status}` } }));
          return;
        }
        const usage = answer.usage === undefined ? derivedUsage(request, answer.content) : answer.usage;
        if (body.stream !== true) {
          request.reported = usage;
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id,
              object: 'chat.completion',
              created: 0,
              model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }],
              ...(usage === null ? {} : { usage }),
            }),
          );
          return;
        }
        const includeUsage = body.stream_options?.include_usage === true;
        request.reported = includeUsage ? usage : null;
        const chunk = (choices: object[], extra: object = {}) =>
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: body.model, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
        const pieces = answer.content.match(/\s*\S+|\s+$/g) ?? [];
        for (const [i, piece] of pieces.entries()) {
          res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
          if (i === 0 && answer.afterFirstPiece !== undefined) await answer.afterFirstPiece;
        }
        res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
        if (includeUsage && usage !== null) res.write(chunk([], { usage }));
        res.end('data: [DONE]\n\n');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
