/**
 * The README's sessions API section end to end: `stateflow serve` started as the serve block says
 * (on a free port, store in a temp directory), then the curl block run as one bash script against
 * it, with every response checked.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, readmeBlock, removeDir, REPO_ROOT, runProcess, startServe, stopServe as stop, tempDir } from './helpers.js';

let root: string;
let server: ChildProcessWithoutNullStreams;
let url: string;

beforeAll(async () => {
  root = await tempDir();
  const serveLine = (await readmeBlock('serve')).trim();
  expect(serveLine.startsWith('npx stateflow serve ')).toBe(true);
  const args = serveLine.split(/\s+/).slice(2);
  const started = await startServe([...args, '--port', '0'], { STATEFLOW_DIR: path.join(root, 'store') });
  server = started.child;
  url = /stateflow serving on (http:\/\/\S+)/.exec(started.banner)?.[1] ?? '';
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) await stop(server);
  await removeDir(root);
});

describe('README sessions API with curl', () => {
  it('creates a session, calls the ladder twice, time-travels its slates, and uses the state API', async () => {
    const curls = (await readmeBlock('sessions')).replaceAll('http://127.0.0.1:7411', url);
    const script = path.join(root, 'sessions.sh');
    // As printed: each curl ends its answer with a newline (-w '\n'), one answer per line.
    await writeFile(script, ['set -euo pipefail', curls].join('\n'));
    const result = await runProcess('bash', [script], { cwd: REPO_ROOT });
    expect(result.code, result.stderr).toBe(0);
    expect(curls.split('\n').filter((line) => line.startsWith('curl ')).every((line) => line.startsWith("curl -s -w '\\n' "))).toBe(true);
    const answers = result.stdout.split('\n');
    expect(answers.at(-1), 'the last answer ends its line').toBe('');
    const [first, second, session, slates, patched, read] = answers.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    // The answer the user sees is the reply alone; the JSON note went to the slate.
    expect((first as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('We ship on Friday.');
    expect((second as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toContain('Friday');
    expect(session).toMatchObject({ ladder: '@demo/notes', name: 'release planning', status: 'active' });
    expect(slates).toMatchObject({
      ladder: '@demo/notes',
      rev: 2,
      slates: { 'Conversation Memory': { history: { 'messages.md': '{"exchange":"Q: When do we ship? A: Friday."}' } } },
    });
    expect(patched).toHaveProperty('state_updates');
    expect(read).toEqual({ value: { next: 'ship on Friday' } });
  });
});

describe('README openai client block', () => {
  // As the README says: "with the server above running", after the curl block's two calls.
  it('creates a session and streams one answer into it with the official client', async () => {
    // Run from test/, whose dependencies hold the pinned openai client.
    const result = await runProcess(process.execPath, ['--input-type=module', '-e', await readmeBlock('openai', 'js')], {
      cwd: path.join(REPO_ROOT, 'test'),
      env: { STATEFLOW_URL: url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^We ship on Friday\.\n\d+ tokens\n$/);
    const sessions = await fetch(`${url}/v1/demo/notes/sessions`).then((r) => r.json() as Promise<{ data: Array<{ name: string | null; rev: number }> }>);
    // The curl block's session (two calls) and the client's (one call).
    expect(sessions.data.map((s) => s.rev).sort()).toEqual([2, 3]);
  });
});

describe('the main job (npm start runs stateflow serve)', () => {
  it('prints where it listens, where the data is, and a command that works; stops on SIGTERM with exit 0', async () => {
    const dir = path.join(root, 'main-job');
    const { child, banner } = await startServe(['serve', '--port', '0'], { STATEFLOW_DIR: dir });
    try {
      const lines = banner.trim().split('\n');
      expect(lines[0]).toMatch(/^stateflow serving on http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines[1]).toBe(`data: ${dir}`);
      expect(lines[2]).toBe('ladders: none (pass --ladders DIR to serve some)');
      const tryLine = lines[3] ?? '';
      expect(tryLine.startsWith('try: curl ')).toBe(true);
      const result = await runProcess('bash', ['-c', tryLine.slice('try: '.length)]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ meta: { type: 'object', size: 0 }, keys: {} });
      expect(result.stdout.endsWith('}\n'), 'the answer ends its line').toBe(true);
      // The history page's URL, with the token in its fragment, opens the page.
      const history = /browser: (http:\/\/127\.0\.0\.1:\d+\/ui\/)#token=[A-Za-z0-9_-]+$/.exec(lines[4] ?? '');
      expect(history, lines[4]).not.toBeNull();
      const page = await fetch(history![1]!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app">');
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});

describe('serve with API keys', () => {
  it('prints a command that works for a key holder: it creates a session of a served ladder', async () => {
    const keys = path.join(root, 'keys.json');
    await writeFile(keys, JSON.stringify({ 'k-alice': 'alice' }));
    const { child, banner } = await startServe(
      ['serve', '--port', '0', '--keys', keys, '--ladders', 'packages/cli/examples/ladders'],
      { STATEFLOW_DIR: path.join(root, 'keyed') },
    );
    try {
      const tryLine = banner.trim().split('\n')[3] ?? '';
      expect(tryLine).toContain("-H 'Authorization: Bearer <your key>'");
      const command = tryLine.slice('try: '.length).replace('<your key>', 'k-alice');
      const result = await runProcess('bash', ['-c', command]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: expect.stringMatching(/^sess_/), ladder: '@demo/notes' });
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});

describe('serve session lifecycle options (flags and environment)', () => {
  const http = async (method: string, target: string) => {
    const response = await fetch(target, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('--session-idle and --session-retention expire an unused session and delete its slates', async () => {
    const { child, banner } = await startServe(
      ['serve', '--port', '0', '--ladders', 'packages/cli/examples/ladders', '--session-idle', '1s', '--session-retention', '0'],
      { STATEFLOW_DIR: path.join(root, 'idle') },
    );
    try {
      expect(banner).toContain('sessions: expire after 1s idle; slates kept 0ms after close or expiry\n');
      const base = /stateflow serving on (http:\/\/\S+)/.exec(banner)?.[1] ?? '';
      const created = await http('POST', `${base}/v1/demo/notes/sessions`);
      expect(created.status).toBe(200);
      const id = String(created.body.id);
      expect((await http('GET', `${base}/v1/demo/notes/sessions/${id}`)).body.status).toBe('created');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const after = await http('GET', `${base}/v1/demo/notes/sessions/${id}`);
      expect(after.body).toMatchObject({ status: 'expired', purgedAt: expect.any(String) });
      const slates = await http('GET', `${base}/v1/demo/notes/sessions/${id}/slates`);
      expect(slates.status).toBe(410);
      expect(slates.body.error.code).toBe('SESSION_CLOSED');
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('takes STATEFLOW_SESSION_IDLE / STATEFLOW_SESSION_RETENTION when no flag is given; a flag wins', async () => {
    const env = { STATEFLOW_DIR: path.join(root, 'env'), STATEFLOW_SESSION_IDLE: '12h', STATEFLOW_SESSION_RETENTION: 'forever' };
    const fromEnv = await startServe(['serve', '--port', '0'], env);
    expect(await stop(fromEnv.child)).toBe(0);
    expect(fromEnv.banner).toContain('sessions: expire after 12h idle; slates kept forever after close or expiry\n');
    const flagWins = await startServe(['serve', '--port', '0', '--session-idle', '90m'], env);
    expect(await stop(flagWins.child)).toBe(0);
    expect(flagWins.banner).toContain('sessions: expire after 90m idle; slates kept forever after close or expiry\n');
    const defaults = await startServe(['serve', '--port', '0'], { STATEFLOW_DIR: path.join(root, 'env') });
    expect(await stop(defaults.child)).toBe(0);
    expect(defaults.banner).toContain('sessions: expire after 30d idle; slates kept 30d after close or expiry\n');
  });

  it('refuses a bad duration with exit 2, naming the flag or the variable', async () => {
    for (const [args, env, named] of [
      [['--session-idle', '0'], {}, "option '--session-idle <duration>' argument '0' is invalid"],
      [['--session-retention', 'soon'], {}, "option '--session-retention <duration>' argument 'soon' is invalid"],
      [[], { STATEFLOW_SESSION_IDLE: '-5m' }, "value '-5m' from env 'STATEFLOW_SESSION_IDLE' is invalid"],
    ] as const) {
      const result = await runProcess(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: { STATEFLOW_DIR: path.join(root, 'bad'), ...env } });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(named);
      expect(result.stderr).toMatch(/\[USAGE\]\n$/);
    }
  });
});
