/**
 * The OpenAI-compatible endpoint as a user of the official `openai` client meets it: a real server
 * on loopback over classic-level, its ladders' model calls going to a fake upstream on loopback
 * that streams SSE and reports usage (or to the scripted model). Streaming (`create({stream:
 * true})` and `chat.completions.stream()`), usage, a client that disconnects mid-stream, errors
 * before and after the first content byte, aborted runs, `models.list()`, the conversation as
 * the ladder's input, and tools.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import type OpenAI from 'openai';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { startFakeUpstream } from './fake-upstream.js';
import type { FakeUpstream, UpstreamAnswer, UpstreamRequest } from './fake-upstream.js';
import { http, ladderClient, makeDirs, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

/**
 * Two steps; the exit step has two parallel nodes and no gate (so its tokens stream live), reads
 * the conversation's earlier turns and system text, and appends each node's exchange.
 */
const CONVO_YAML = `
name: convo
slates:
  - title: Memory
    folders:
      - name: history
        tokenLimit: 5000
        files: [{ name: messages.md }]
steps:
  - id: think
    fields:
      - { name: Question, type: text, from: input.context }
  - id: answer
    nodes: 2
    systemPrompt: "Answer, then emit {\\"exchange\\": \\"...\\"}."
    fields:
      - { name: Instructions, type: text, from: input.system }
      - { name: Earlier, type: text, from: input.messages }
      - { name: Thought, type: text, from: previous }
    slateWrite:
      to: { slate: Memory, folder: history, file: messages.md }
      on: append
      match: { type: object, required: [exchange], properties: { exchange: { type: string } } }
`;

/** One step with a gate: the answer must be exactly "ok", else the run aborts. */
const GATED_YAML = `
name: gated
steps:
  - id: check
    fields: [{ name: Q, type: text, from: input.context }]
    if: { equals: "ok", else: abort }
`;

const user = (content: string) => ({ role: 'user' as const, content });
const ask = (content: string) => ({ model: 'gpt-4o', messages: [user(content)] });

/** Text the fake upstream answers for a request: a function of its messages only, so repeatable. */
function answerFor(request: UpstreamRequest): string {
  const last = request.messages[request.messages.length - 1]?.content ?? '';
  if (last.startsWith('Q:\n')) return last.includes('say ok') ? 'ok' : 'not ok';
  if (last.startsWith('Question:')) return `Thinking about ${last.slice('Question:\n'.length).length} characters.`;
  return `The answer, in a few words. {"exchange": "answered ${last.length}"}`;
}

/** Everything a streamed completion delivered, read with the official client. */
async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<{ chunks: OpenAI.ChatCompletionChunk[]; content: string }> {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, content: chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('') };
}

const sum = (requests: UpstreamRequest[], field: 'prompt_tokens' | 'completion_tokens' | 'total_tokens') =>
  requests.reduce((n, r) => n + (r.reported?.[field] ?? Number.NaN), 0);

let dirs: Dirs;

beforeAll(async () => {
  dirs = await makeDirs();
  await writeFile(path.join(dirs.ladders, 'alice', 'convo.yaml'), CONVO_YAML);
  await writeFile(path.join(dirs.ladders, 'alice', 'gated.yaml'), GATED_YAML);
});
afterAll(async () => {
  await dirs?.cleanup();
});

describe('with an OpenAI-compatible upstream that streams and reports usage', () => {
  let upstream: FakeUpstream;
  let server: ServerHandle;
  /** Per-test override of the upstream's answers. */
  let respond: (request: UpstreamRequest) => string | UpstreamAnswer | Promise<string | UpstreamAnswer> = answerFor;
  let client: OpenAI;
  /** The server's log lines (one per 5xx). */
  const logged: string[] = [];

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => respond(request));
    server = await startServer({
      dir: path.join(dirs.root, 'upstream-store'),
      ladders: dirs.ladders,
      port: 0,
      env: upstreamEnv(upstream),
      sweepIntervalMs: 0,
      onWarning: () => undefined,
      upstreamModel: 'gpt-4o-mini',
      logDestination: { write: (line: string) => logged.push(line) },
    });
    client = ladderClient(server.url, 'alice/convo');
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });

  const newSession = async (ladder = 'alice/convo'): Promise<string> => {
    const created = await http(`${server.url}/v1/${ladder}/sessions`, { body: {} });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  const slates = async (id: string) => (await http(`${server.url}/v1/alice/convo/sessions/${id}/slates`)).body;

  it('create({stream: true}): role first, content deltas, finish_reason stop, usage last; the same content and usage as without stream', async () => {
    respond = answerFor;
    const before = upstream.requests.length;
    const plain = await client.chat.completions.create(ask('How do gates decide?'));
    const plainCalls = upstream.requests.slice(before);
    expect(plainCalls.map((r) => r.stream ?? false)).toEqual([false, false, false]);
    expect(plain.usage).toEqual({
      prompt_tokens: sum(plainCalls, 'prompt_tokens'),
      completion_tokens: sum(plainCalls, 'completion_tokens'),
      total_tokens: sum(plainCalls, 'total_tokens'),
    });

    const mark = upstream.requests.length;
    const stream = await client.chat.completions.create({ ...ask('How do gates decide?'), stream: true, stream_options: { include_usage: true } });
    const { chunks, content } = await collect(stream);
    const streamedCalls = upstream.requests.slice(mark);
    // Earlier steps run as without streaming; only the exit step's nodes stream from the upstream.
    expect(streamedCalls.map((r) => r.stream ?? false)).toEqual([false, true, true]);
    expect(streamedCalls[1]?.stream_options).toEqual({ include_usage: true });
    expect(content).toBe(plain.choices[0]?.message.content);
    expect(content).toContain('\n\n');
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.filter((c) => (c.choices[0]?.delta?.content ?? '') !== '').length).toBeGreaterThan(4);
    const finish = chunks.at(-2);
    expect(finish?.choices[0]?.finish_reason).toBe('stop');
    expect((finish as unknown as { stateflow: object }).stateflow).toMatchObject({ session: null, ladder: '@alice/convo', rev: null, aborted: null });
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({
      prompt_tokens: sum(streamedCalls, 'prompt_tokens'),
      completion_tokens: sum(streamedCalls, 'completion_tokens'),
      total_tokens: sum(streamedCalls, 'total_tokens'),
    });
    expect(last?.usage).toEqual(plain.usage);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('chat.completions.stream() assembles the same final completion; without include_usage no usage chunk is sent', async () => {
    respond = answerFor;
    const plain = await client.chat.completions.create(ask('Same question'));
    const deltas: string[] = [];
    const runner = client.chat.completions.stream(ask('Same question'));
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
    expect(final.choices[0]?.finish_reason).toBe('stop');
    expect(deltas.join('')).toBe(plain.choices[0]?.message.content);
    expect(final.usage).toBeUndefined();
  });

  it('usage is omitted, not 0 or a partial sum, when one upstream call reports none', async () => {
    respond = (request) => (request.messages.at(-1)?.content.startsWith('Question:') ? { content: answerFor(request), usage: null } : answerFor(request));
    const plain = await client.chat.completions.create(ask('Unknown usage'));
    expect(plain.choices[0]?.message.content).toContain('exchange');
    expect(plain).not.toHaveProperty('usage');
    const { chunks } = await collect(await client.chat.completions.create({ ...ask('Unknown usage'), stream: true, stream_options: { include_usage: true } }));
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.every((c) => c.usage === null)).toBe(true);
  });

  it('a client that disconnects mid-stream changes nothing: the call runs to its end and records its one transition', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let streamedRequests = 0;
    respond = (request) => {
      if (request.stream !== true) return answerFor(request);
      streamedRequests += 1;
      return { content: answerFor(request), afterFirstPiece: streamedRequests === 1 ? held : undefined };
    };
    const id = await newSession();
    const control = await newSession();
    expect((await slates(id)).head).toBe(1);

    const controller = new AbortController();
    const stream = await client.chat.completions.create({ ...ask('Remember this'), stream: true }, { headers: { 'X-Session-Id': id }, signal: controller.signal });
    let received = '';
    try {
      for await (const chunk of stream) {
        received += chunk.choices[0]?.delta?.content ?? '';
        if (received !== '') controller.abort();
      }
    } catch (err) {
      expect((err as Error).name).toMatch(/Abort/);
    }
    expect(received).toBe('The');
    const seqBefore = server.store.lastSeq();
    release();
    await server.sessions.idle();

    // The control session gets the same call from a client that stays.
    respond = answerFor;
    const stayed = await client.chat.completions.create(ask('Remember this'), { headers: { 'X-Session-Id': control } });
    const afterDisconnect = await slates(id);
    expect(afterDisconnect.head).toBe(2);
    expect(afterDisconnect.slates).toEqual((await slates(control)).slates);
    const file: string = afterDisconnect.slates.Memory.history['messages.md'];
    expect(stayed.choices[0]?.message.content).toContain('answered');
    expect(file.split('\n\n')).toEqual([expect.stringMatching(/^\{"exchange":"answered \d+"\}$/), expect.stringMatching(/^\{"exchange":"answered \d+"\}$/)]);
    const written = await server.store.transition(seqBefore + 1);
    expect(written.meta).toMatchObject({ kind: 'ladder-call', session: id });
    expect(written.changes.map((c) => c.stream)).toEqual([`slate:@alice/convo:${id}`]);
  });

  it('an error before the first content byte is the normal JSON error; after it, one error event the client throws', async () => {
    respond = answerFor;
    const unknown = await client.chat.completions
      .create({ ...ask('x'), stream: true }, { headers: { 'X-Session-Id': 'sess_00000000000000000000000000000000' } })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(APIError);
    expect((unknown as APIError).status).toBe(404);
    expect((unknown as APIError).code).toBe('SESSION_NOT_FOUND');

    respond = (request) => (request.messages.at(-1)?.content.startsWith('Question:') ? { content: '', status: 500 } : answerFor(request));
    const early = await client.chat.completions.create({ ...ask('x'), stream: true }).catch((e: unknown) => e);
    expect((early as APIError).status).toBe(502);
    expect((early as APIError).code).toBe('MODEL_FAILED');

    const id = await newSession();
    let streamed = 0;
    respond = async (request) => {
      if (request.stream !== true) return answerFor(request);
      streamed += 1;
      if (streamed === 1) return { content: answerFor(request), afterFirstPiece: new Promise((resolve) => setTimeout(resolve, 300)) };
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { content: '', status: 500 };
    };
    const stream = await client.chat.completions.create({ ...ask('fails mid-way'), stream: true }, { headers: { 'X-Session-Id': id } });
    let received = '';
    const failure = await (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    expect(received).toBe('The');
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).code).toBe('MODEL_FAILED');
    // A 5xx after the first byte is the server's fault like any other: its request id, logged.
    const requestId = ((failure as APIError).error as { details: { requestId?: unknown } }).details.requestId;
    expect(typeof requestId).toBe('string');
    const lines = logged.map((line) => JSON.parse(line) as { reqId: string; code: string; status: number });
    expect(lines.filter((line) => line.reqId === requestId).map((line) => [line.code, line.status])).toEqual([['MODEL_FAILED', 502]]);
    await server.sessions.idle();
    expect((await slates(id)).head).toBe(1);
  });

  it('an aborted run is content null with a refusal naming the step, streamed or not, in the same shape', async () => {
    respond = answerFor;
    const gated = ladderClient(server.url, 'alice/gated');
    const passed = await gated.chat.completions.create(ask('please say ok'));
    expect(passed.choices[0]?.message).toMatchObject({ content: 'ok', refusal: null });
    const aborted = await gated.chat.completions.create(ask('refuse'));
    const refusal = 'The ladder aborted at step "check" (node 0): its gate did not match and its else is abort.';
    expect(aborted.choices[0]?.message).toEqual({ role: 'assistant', content: null, refusal });
    expect((aborted as unknown as { stateflow: object }).stateflow).toMatchObject({ aborted: { step: 'check', node: 0, branch: 'else' } });

    const final = await gated.chat.completions.stream(ask('refuse')).finalChatCompletion();
    expect(final.choices[0]?.message.refusal).toBe(refusal);
    expect(final.choices[0]?.message.content).toBeNull();
    const { chunks, content } = await collect(await gated.chat.completions.create({ ...ask('refuse'), stream: true }));
    expect(content).toBe('');
    expect(chunks.map((c) => c.choices[0]?.delta?.refusal ?? null).filter((r) => r !== null)).toEqual([refusal]);
    expect((chunks.at(-1) as unknown as { stateflow: object }).stateflow).toMatchObject({ aborted: { step: 'check', node: 0, branch: 'else' } });

    // A gated exit step streams only once its gate has decided: the whole answer in one delta.
    const { chunks: okChunks, content: okContent } = await collect(await gated.chat.completions.create({ ...ask('please say ok'), stream: true }));
    expect(okContent).toBe('ok');
    expect(okChunks.filter((c) => (c.choices[0]?.delta?.content ?? '') !== '')).toHaveLength(1);
  });

  it('models.list() and models.retrieve() show the ladder; as a request model it means --upstream-model', async () => {
    respond = answerFor;
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([{ id: '@alice/convo', object: 'model', created: expect.any(Number), owned_by: 'alice' }]);
    expect(await client.models.retrieve('@alice/convo')).toEqual(models[0]);
    const other = await client.models.retrieve('gpt-4o').catch((e: unknown) => e);
    expect((other as APIError).status).toBe(404);
    const before = upstream.requests.length;
    const answered = await client.chat.completions.create({ model: '@alice/convo', messages: [user('By ladder name')] });
    expect(answered.model).toBe('@alice/convo');
    expect(upstream.requests.slice(before).map((r) => r.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini']);
  });

  it("a multi-turn conversation reaches the ladder: system text, earlier turns, the last user message", async () => {
    respond = answerFor;
    const before = upstream.requests.length;
    await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is a slate?' },
        { role: 'assistant', content: 'A memory of folders and files.' },
        { role: 'developer', content: 'Cite the folder.' },
        { role: 'user', content: [{ type: 'text', text: 'And a metatag?' }] },
      ],
    });
    const [think, answer] = upstream.requests.slice(before);
    expect(think?.messages).toEqual([{ role: 'user', content: 'Question:\nAnd a metatag?' }]);
    const prompt = answer?.messages.at(-1)?.content ?? '';
    expect(prompt).toContain('Instructions:\nYou are terse.\n\nCite the folder.');
    expect(prompt).toContain(
      `Earlier:\n${JSON.stringify([
        { role: 'user', content: 'What is a slate?' },
        { role: 'assistant', content: 'A memory of folders and files.' },
      ])}`,
    );
    expect(prompt).not.toContain('And a metatag?');
  });

  it('a non-empty tools list is refused with 400; tools: [] is fine', async () => {
    respond = answerFor;
    const tool = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } };
    const refused = await client.chat.completions.create({ ...ask('use a tool'), tools: [tool] }).catch((e: unknown) => e);
    expect((refused as APIError).status).toBe(400);
    expect((refused as APIError).code).toBe('INPUT_INVALID');
    expect((refused as APIError).error).toMatchObject({ details: { field: 'tools', reason: 'unsupported' } });
    const fine = await client.chat.completions.create({ ...ask('no tools'), tools: [] });
    expect(fine.choices[0]?.message.content).toContain('exchange');
  });
});

describe('with the scripted model', () => {
  it('streamed content equals the non-streamed content for the same scripted outputs, with the tokenizer usage', async () => {
    const outputs = ['a thought', 'Node zero answers. {"exchange": "zero"}', 'Node one answers too. {"exchange": "one"}'];
    const script = path.join(dirs.root, 'convo.jsonl');
    await writeFile(script, [...outputs, ...outputs].map((content) => JSON.stringify({ content })).join('\n'));
    await mkdir(path.join(dirs.root, 'scripted-store'), { recursive: true });
    const server = await startServer({
      dir: path.join(dirs.root, 'scripted-store'),
      ladders: dirs.ladders,
      port: 0,
      env: {},
      model: `scripted:${script}`,
      sweepIntervalMs: 0,
      onWarning: () => undefined,
    });
    try {
      const client = ladderClient(server.url, 'alice/convo');
      const plain = await client.chat.completions.create({ model: '@alice/convo', messages: [user('Scripted question')] });
      const { chunks, content } = await collect(
        await client.chat.completions.create({ model: '@alice/convo', messages: [user('Scripted question')], stream: true, stream_options: { include_usage: true } }),
      );
      expect(plain.choices[0]?.message.content).toBe(`${outputs[1]}\n\n${outputs[2]}`);
      expect(content).toBe(plain.choices[0]?.message.content);
      expect(plain.usage?.completion_tokens).toBeGreaterThan(10);
      expect(plain.usage?.total_tokens).toBe((plain.usage?.prompt_tokens ?? 0) + (plain.usage?.completion_tokens ?? 0));
      expect(chunks.at(-1)?.usage).toEqual(plain.usage);
    } finally {
      await server.close();
    }
  });
});

describe('model configuration', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream(answerFor);
  });
  afterAll(async () => {
    await upstream?.close();
  });
  const serve = async (name: string, extra: { model?: string }) => {
    await mkdir(path.join(dirs.root, name), { recursive: true });
    const quiet = { onWarning: () => undefined, logDestination: { write: () => undefined } };
    return startServer({ dir: path.join(dirs.root, name), ladders: dirs.ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0, ...quiet, ...extra });
  };

  it('the ladder as model without a default upstream model is MODEL_NOT_CONFIGURED (503, not retried); a real name runs', async () => {
    const server = await serve('no-upstream-model', {});
    try {
      const before = upstream.requests.length;
      const r = await http(`${server.url}/v1/alice/convo/chat/completions`, { body: { model: '@alice/convo', messages: [user('hi')] } });
      expect(r.status).toBe(503);
      expect(r.headers.get('x-should-retry')).toBe('false');
      expect(r.body.error.code).toBe('MODEL_NOT_CONFIGURED');
      expect(r.body.error.details).toEqual({ missing: 'upstream-model', model: '@alice/convo', requestId: r.headers.get('x-request-id') });
      expect(upstream.requests.length).toBe(before);
      const named = await ladderClient(server.url, 'alice/convo').chat.completions.create(ask('hi'));
      expect(named.choices[0]?.message.content).toContain('exchange');
      expect(upstream.requests.slice(before).map((request) => request.model)).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o']);
    } finally {
      await server.close();
    }
  });

  it('--model openai:<model> pins the upstream model of every call, whatever the request names', async () => {
    const server = await serve('pinned', { model: 'openai:pinned-model' });
    try {
      const client = ladderClient(server.url, 'alice/convo');
      const before = upstream.requests.length;
      await client.chat.completions.create(ask('one'));
      await client.chat.completions.create({ model: '@alice/convo', messages: [user('two')] });
      expect(upstream.requests.slice(before).map((request) => request.model)).toEqual(Array(6).fill('pinned-model'));
    } finally {
      await server.close();
    }
  });

  it('a model option of another form is USAGE at start', async () => {
    for (const model of ['gpt-4o', 'ollama:llama3', 'openai:']) {
      const err = await serve(`bad-model-${model.replace(/\W/g, '')}`, { model }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'USAGE', details: { model } });
    }
  });
});
