/**
 * The README's sessions API section end to end: `stateflow serve` started as the serve block says
 * (on a free port, store in a temp directory), then the curl block run as one bash script against
 * it, with every response checked.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, removeDir, runProcess, startServe, stopServe as stop, tempDir } from './helpers.js';

const README = path.join(REPO_ROOT, 'README.md');

async function block(name: string): Promise<string> {
  const text = await readFile(README, 'utf8');
  const found = new RegExp(`<!-- ${name}:begin[^>]*-->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(text)?.[1];
  if (found === undefined) throw new Error(`${README} has no ${name} block`);
  return found;
}

let root: string;
let server: ChildProcessWithoutNullStreams;
let url: string;

beforeAll(async () => {
  root = await tempDir();
  const serveLine = (await block('serve')).trim();
  expect(serveLine.startsWith('stateflow serve ')).toBe(true);
  const args = serveLine.split(/\s+/).slice(1);
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
    const curls = (await block('sessions')).replaceAll('http://127.0.0.1:7411', url);
    const script = path.join(root, 'sessions.sh');
    // Each response on its own line, so the test can check them one by one.
    await writeFile(script, ['set -euo pipefail', ...curls.split('\n').map((line) => (line.startsWith('curl ') ? `${line}; echo` : line))].join('\n'));
    const result = await runProcess('bash', [script], { cwd: REPO_ROOT });
    expect(result.code, result.stderr).toBe(0);
    const [first, second, session, slates, patched, read] = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect((first as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe(
      'We ship on Friday. {"exchange": "Q: When do we ship? A: Friday."}',
    );
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
