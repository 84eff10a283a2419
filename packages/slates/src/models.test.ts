import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStateflowError } from '@stateflow/core';
import { modelFromSpec, parseModelSpec } from './model-spec.js';
import { openAIModel } from './openai-model.js';
import { parseScript, scriptedModel, scriptedModelFromFile } from './scripted-model.js';
import { loadTokenCounter } from './token-counter.js';
import { removeDir, tempDir } from '@stateflow/test-kit';

const request = { messages: [{ role: 'user' as const, content: 'hi' }], step: 's', node: 0, round: 1 };

describe('scripted model (JSON Lines)', () => {
  it('replays {"content"} lines in call order, then fails with MODEL_FAILED', async () => {
    const dir = await tempDir('script');
    try {
      const file = path.join(dir, 'model.jsonl');
      await writeFile(file, '{"content": "first"}\n\n{"content": "{\\"a\\": 1}"}\n');
      const model = await scriptedModelFromFile(file);
      expect((await model.complete(request)).content).toBe('first');
      expect((await model.complete({ ...request, node: 1 })).content).toBe('{"a": 1}');
      await expect(model.complete({ ...request, step: 'next' })).rejects.toMatchObject({
        code: 'MODEL_FAILED',
        message: `Scripted model ${file} has 2 outputs but call 3 arrived (step "next", node 0, round 1): add lines to the script, or restart to replay it from its first line`,
      });
      expect(model.requests.map((r) => r.step)).toEqual(['s', 's', 'next']);
    } finally {
      await removeDir(dir);
    }
  });

  it('rejects lines that are not {"content": string}, naming the line', () => {
    expect(() => parseScript('{"content": "ok"}\n{"text": "no"}', 'm.jsonl')).toThrowError(
      'm.jsonl line 2: expected {"content": "<model output>"}',
    );
    try {
      parseScript('not json');
    } catch (err) {
      expect(isStateflowError(err, 'INPUT_INVALID')).toBe(true);
    }
  });

  it('a missing file is NOT_FOUND', async () => {
    await expect(scriptedModelFromFile('/nonexistent/model.jsonl')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('scriptedModel over an array', async () => {
    const model = scriptedModel(['x']);
    expect((await model.complete(request)).content).toBe('x');
    expect(model.remaining()).toBe(0);
  });

  it('reports usage counted with the tokenizer: the messages\' text as prompt, the output as completion', async () => {
    const count = await loadTokenCounter('o200k_base');
    const output = 'The answer is 42, as {"exchange": "computed"} says.';
    const messages = [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'What is six times seven?' },
    ];
    const answer = await scriptedModel([output]).complete({ ...request, messages });
    const promptTokens = count('Answer briefly.') + count('What is six times seven?');
    expect(promptTokens).toBeGreaterThan(5);
    expect(answer).toEqual({ content: output, usage: { promptTokens, completionTokens: count(output), totalTokens: promptTokens + count(output) } });
  });

  it('streams an output word by word when asked; the pieces join to the content exactly', async () => {
    const output = '  Two words\nand a line  ';
    const pieces: string[] = [];
    const answer = await scriptedModel([output]).complete(request, { onDelta: (text) => pieces.push(text) });
    expect(pieces).toEqual(['  Two', ' words', '\nand', ' a', ' line', '  ']);
    expect(pieces.join('')).toBe(answer.content);
  });
});

describe('model specs (--model of `ladder run` and `serve`)', () => {
  it('parses scripted:<file> and openai:<model>; everything after the first colon is the value', () => {
    expect(parseModelSpec('scripted:model.jsonl')).toEqual({ kind: 'scripted', file: 'model.jsonl' });
    expect(parseModelSpec('scripted:C:/models/a.jsonl')).toEqual({ kind: 'scripted', file: 'C:/models/a.jsonl' });
    expect(parseModelSpec('openai:gpt-4o')).toEqual({ kind: 'openai', model: 'gpt-4o' });
    expect(parseModelSpec('openai:llama3.1:8b')).toEqual({ kind: 'openai', model: 'llama3.1:8b' });
  });

  it('refuses every other form with USAGE naming the spec', async () => {
    for (const spec of ['gpt-4o', 'scripted:', 'openai:', ':x', 'ollama:llama3', 'Scripted:a.jsonl', '']) {
      let caught: unknown;
      try {
        parseModelSpec(spec);
      } catch (err) {
        caught = err;
      }
      expect(isStateflowError(caught, 'USAGE'), spec).toBe(true);
      expect((caught as { details: unknown }).details).toEqual({ model: spec });
    }
    await expect(modelFromSpec('ollama:llama3')).rejects.toMatchObject({ code: 'USAGE', details: { model: 'ollama:llama3' } });
  });

  it('reads a relative script from cwd; an unreadable one is NOT_FOUND', async () => {
    const dir = await tempDir('spec');
    try {
      await writeFile(path.join(dir, 'm.jsonl'), '{"content": "from the script"}\n');
      const model = await modelFromSpec('scripted:m.jsonl', { cwd: dir });
      expect((await model.complete(request)).content).toBe('from the script');
      await expect(modelFromSpec('scripted:absent.jsonl', { cwd: dir })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        details: { file: path.join(dir, 'absent.jsonl') },
      });
    } finally {
      await removeDir(dir);
    }
  });
});

describe('OpenAI-compatible client against a real loopback HTTP server', () => {
  let baseURL = '';
  const seen: Array<{ url: string; auth: string | undefined; body: any }> = [];
  let status = 200;
  let reply: unknown = { choices: [{ message: { role: 'assistant', content: 'Hello from the server' } }] };
  const chunk = (delta: object, extra: object = {}) => ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra });
  let streamed: unknown[] = [
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'Hel' }),
    chunk({ content: 'lo' }),
    { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } },
  ];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body);
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body: parsed });
      if (parsed.stream === true && status === 200) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const chunk of streamed) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('openai:<model> is that model on the endpoint OPENAI_BASE_URL / OPENAI_API_KEY name', async () => {
    const model = await modelFromSpec('openai:llama3.1:8b', { env: { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-env' } });
    expect(await model.complete(request)).toEqual({ content: 'Hello from the server' });
    expect(seen.at(-1)).toMatchObject({ url: '/v1/chat/completions', auth: 'Bearer sk-env', body: { model: 'llama3.1:8b' } });
  });

  it('POSTs chat/completions with model, messages and bearer key from options', async () => {
    const model = openAIModel({ model: 'gpt-4o', baseURL, apiKey: 'sk-test', temperature: 0 });
    expect(await model.complete(request)).toEqual({ content: 'Hello from the server' });
    expect(seen.at(-1)).toEqual({
      url: '/v1/chat/completions',
      auth: 'Bearer sk-test',
      body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 0 },
    });
  });

  it("reports the upstream's usage; without usage (or a malformed one) the answer's usage is unknown", async () => {
    const model = openAIModel({ model: 'm', baseURL, env: {} });
    reply = { choices: [{ message: { content: 'counted' } }], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } };
    expect(await model.complete(request)).toEqual({ content: 'counted', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } });
    reply = { choices: [{ message: { content: 'half' } }], usage: { prompt_tokens: 12 } };
    expect(await model.complete(request)).toEqual({ content: 'half' });
    expect(seen.at(-1)?.auth).toBeUndefined();
    reply = { choices: [{ message: { role: 'assistant', content: 'Hello from the server' } }] };
  });

  it('streams when asked: stream_options.include_usage, each delta forwarded in order, usage from the last chunk', async () => {
    const model = openAIModel({ model: 'm', baseURL, apiKey: 'sk-test' });
    const deltas: string[] = [];
    expect(await model.complete(request, { onDelta: (text) => deltas.push(text) })).toEqual({
      content: 'Hello',
      usage: { promptTokens: 7, completionTokens: 2, totalTokens: 9 },
    });
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(seen.at(-1)?.body).toEqual({ model: 'm', messages: request.messages, stream: true, stream_options: { include_usage: true } });
    const before = streamed;
    streamed = [];
    await expect(model.complete(request, { onDelta: () => undefined })).rejects.toMatchObject({ code: 'MODEL_FAILED', message: `${baseURL}/chat/completions streamed no choices` });
    streamed = before;
  });

  it('reads base URL and key from the environment', async () => {
    const model = openAIModel({ model: 'm', env: { OPENAI_BASE_URL: `${baseURL}/`, OPENAI_API_KEY: 'sk-env' } });
    await model.complete(request);
    expect(seen.at(-1)?.auth).toBe('Bearer sk-env');
    expect(seen.at(-1)?.url).toBe('/v1/chat/completions');
  });

  it('non-2xx is MODEL_FAILED; a response without content is MODEL_FAILED', async () => {
    status = 429;
    reply = { error: { message: 'rate limited' } };
    const model = openAIModel({ model: 'm', baseURL, env: {} });
    await expect(model.complete(request)).rejects.toMatchObject({
      code: 'MODEL_FAILED',
      message: `${baseURL}/chat/completions answered 429: {"message":"rate limited"}`,
      details: { url: `${baseURL}/chat/completions`, status: 429 },
    });
    status = 200;
    reply = { choices: [] };
    await expect(model.complete(request)).rejects.toMatchObject({ code: 'MODEL_FAILED' });
  });

  it('an unreachable server is MODEL_UNAVAILABLE; an empty model name is USAGE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const model = openAIModel({ model: 'm', baseURL: `http://127.0.0.1:${port}/v1`, env: {} });
    await expect(model.complete(request)).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    expect(() => openAIModel({ model: '' })).toThrowError(/needs a model name/);
  });
});
