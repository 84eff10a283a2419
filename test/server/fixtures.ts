/**
 * Shared fixtures of the HTTP server tests: a ladders directory, a temp store directory, a fake
 * OpenAI-compatible upstream, and a manual clock.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { startFakeUpstream } from './fake-upstream.js';
import { parseMetrics, total } from './prometheus-text.js';
import type { FakeUpstream, UpstreamRequest } from './fake-upstream.js';
import { removeDir, tempDir } from '@stateflow/test-kit';

/** The seed's conversational ladder ("Conversational agent"): each call appends one exchange. */
export const RESEARCHER_YAML = `
name: Research Assistant
exit: answer
slates:
  - title: Conversation Memory
    folders:
      - name: history
        tokenLimit: 5000
        access: readWrite
        evictionPolicy: FIFO
        files:
          - { name: messages.md, init: blank }
steps:
  - id: answer
    fields:
      - { name: Question, type: text, from: input.context }
      - { name: History, type: slateRead, from: { slate: "Conversation Memory", folder: history, file: messages.md } }
    systemPrompt: "Answer the question, using History as context. Then emit {\\"exchange\\": \\"...\\"}."
    slateWrite:
      to: { slate: "Conversation Memory", folder: history, file: messages.md }
      on: append
      match: { type: object, required: [exchange], properties: { exchange: { type: string } } }
`;

/** A ladder that fails validation (a slateRead of an undeclared slate). */
export const BROKEN_YAML = `
name: Broken
steps:
  - id: answer
    fields:
      - { name: X, type: slateRead, from: { slate: "Nowhere", folder: nope, file: x.md } }
    systemPrompt: "x"
`;

/** Temp directories for one test file: `dir` (store), `ladders`, and cleanup. */
export interface Dirs {
  root: string;
  dir: string;
  ladders: string;
  cleanup(): Promise<void>;
}

/** Create a temp root with a ladders directory: `@alice/researcher`, `@alice/broken`, `@local/notes`. */
export async function makeDirs(): Promise<Dirs> {
  const root = await tempDir('http');
  const ladders = path.join(root, 'ladders');
  await mkdir(path.join(ladders, 'alice'), { recursive: true });
  await mkdir(path.join(ladders, 'local'), { recursive: true });
  await writeFile(path.join(ladders, 'alice', 'researcher.yaml'), RESEARCHER_YAML);
  await writeFile(path.join(ladders, 'alice', 'broken.yaml'), BROKEN_YAML);
  await writeFile(path.join(ladders, 'local', 'notes.yaml'), RESEARCHER_YAML);
  return { root, dir: path.join(root, 'store'), ladders, cleanup: () => removeDir(root) };
}

/**
 * A fake upstream whose n-th answer is `Answer n. {"exchange": "answer #n"}`, so a slate write
 * names the call that made it.
 */
export function startCountingUpstream(): Promise<FakeUpstream> {
  return startFakeUpstream(countingAnswers());
}

/** The answers of {@link startCountingUpstream}: the n-th call gives `Answer n. {"exchange": "answer #n"}`. */
export function countingAnswers(): () => string {
  let n = 0;
  return () => {
    n += 1;
    return `Answer ${n}. {"exchange": "answer #${n}"}`;
  };
}

/** The environment pointing the server's model provider at `upstream`. */
export function upstreamEnv(upstream: FakeUpstream): Record<string, string> {
  return { OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'upstream-secret' };
}

/** The official OpenAI client pointed at one ladder of the server (no retries: tests see every status). */
export function ladderClient(serverUrl: string, ladder: string, apiKey = 'local'): OpenAI {
  return new OpenAI({ baseURL: `${serverUrl}/v1/${ladder}`, apiKey, maxRetries: 0 });
}

/** `fetch` returning `{ status, body }` with a JSON body. */
export async function http(
  url: string,
  init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
}

/** A chat/completions request body with one user message. */
export function ask(content: string): { model: string; messages: Array<{ role: 'user'; content: string }> } {
  return { model: 'gpt-4o', messages: [{ role: 'user', content }] };
}

/** A ladder of two steps (draft, then refine with a slate write): a call to pause between them. */
export const TWO_STEPS_YAML = `
name: Two Steps
exit: refine
slates:
  - title: Notes
    folders:
      - name: log
        tokenLimit: 1000
        files:
          - { name: log.md, init: blank }
steps:
  - id: draft
    fields:
      - { name: Question, type: text, from: input.context }
    systemPrompt: "Draft an answer."
  - id: refine
    fields:
      - { name: Draft, type: text, from: previous }
    systemPrompt: "Refine the draft, then emit {\\"exchange\\": \\"...\\"}."
    slateWrite:
      to: { slate: Notes, folder: log, file: log.md }
      on: append
      match: { type: object, required: [exchange], properties: { exchange: { type: string } } }
`;

/**
 * Upstream whose draft answers (of {@link TWO_STEPS_YAML}) wait for `release()`; refine answers
 * echo the draft they got; any other request is answered by `other` when given. `arm()` closes
 * the gate again for the next draft (and renews `draftAsked`).
 */
export function gatedUpstream(other?: (request: UpstreamRequest) => string) {
  let release!: () => void;
  let drafted!: () => void;
  let gate!: Promise<void>;
  let draftAsked!: Promise<void>;
  const arm = (): void => {
    gate = new Promise<void>((resolve) => (release = resolve));
    draftAsked = new Promise<void>((resolve) => (drafted = resolve));
  };
  arm();
  const isDraft = (r: UpstreamRequest) => JSON.stringify(r.messages).includes('Draft an answer.');
  const isRefine = (r: UpstreamRequest) => JSON.stringify(r.messages).includes('Refine the draft');
  const started = startFakeUpstream(async (request) => {
    if (isDraft(request)) {
      drafted();
      await gate;
      return 'draft text';
    }
    if (other !== undefined && !isRefine(request)) return other(request);
    const sawDraft = JSON.stringify(request.messages).includes('draft text');
    return `refined {"exchange": "refined from ${sawDraft ? 'the draft' : 'nothing'}"}`;
  });
  return {
    started,
    get draftAsked() {
      return draftAsked;
    },
    release: () => release(),
    arm,
    isDraft,
  };
}

/**
 * Resolves once `/metrics` of the server at `url` shows `count` lifecycle requests of kind
 * `request` held open on a call (`stateflow_session_requests_waiting`, server README
 * "Observability"): the event a test waits for before it lets a gated call go on — a pause that
 * the call will meet, a resume already waiting for another server's call. Polls every 10 ms and
 * fails after 10 s. `token` is the server token where the server has API keys.
 */
export async function untilRequestsWaiting(url: string, request: 'pause' | 'resume' | 'close', count: number, token?: string): Promise<void> {
  const headers: Record<string, string> = token === undefined ? {} : { 'x-stateflow-token': token };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const scraped = await fetch(`${url}/metrics`, { headers });
    if (scraped.status !== 200) throw new Error(`GET ${url}/metrics answered ${scraped.status}`);
    const seen = total(parseMetrics(await scraped.text()), 'stateflow_session_requests_waiting', { request });
    if (seen === count) return;
    if (Date.now() > deadline) throw new Error(`${url}: ${seen} ${request} requests waiting after 10 s, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
