/**
 * A fake OpenAI-compatible upstream on loopback for tests: answers `POST …/chat/completions`
 * with whatever `respond` returns (or resolves to) for the request, and records every request
 * it received.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The part of an OpenAI chat completion request the fake reads. */
export interface UpstreamRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  authorization: string | undefined;
}

/** A running fake upstream. */
export interface FakeUpstream {
  /** Base URL to use as OPENAI_BASE_URL, ending in `/v1`. */
  baseUrl: string;
  /** Every request received, in arrival order. */
  requests: UpstreamRequest[];
  close(): Promise<void>;
}

/** Start a fake upstream on 127.0.0.1 with a free port. */
export async function startFakeUpstream(respond: (request: UpstreamRequest) => string | Promise<string>): Promise<FakeUpstream> {
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
      void Promise.resolve(respond(request)).then((content) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-fake-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
