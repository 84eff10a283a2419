/**
 * The packages install outside the checkout exactly as README.md "Outside the checkout" says:
 * its `pack` block runs as printed, from the checkout root, with the test's own folders for
 * `/tmp/stateflow-packs` (one that does not exist yet: the block must create it) and
 * `/path/to/your/project` (third-party dependencies from the npm cache that `npm ci` filled, as
 * `npm_config_prefer_offline` in the environment). Then, in that project, the README's library
 * example runs as its comments say, every package's entry point imports, the installed
 * `stateflow` reads the store the example wrote, and the "Use with LangGraph.js" install line
 * and lines run a graph whose thread `stateflow show` decodes. A second project installs the
 * server and the CLI without their optional peers (`@stateflow/langgraph`, the OpenTelemetry
 * SDK): neither comes along, the server serves, and the features that need them answer
 * `PACKAGE_NOT_INSTALLED` naming the package.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, removeDir, REPO_ROOT, tempDir } from '../cli/helpers.js';

/** The published packages (every workspace under packages/). */
const PACKAGES = ['core', 'store', 'store-leveldb', 'store-postgres', 'http-contract', 'client', 'tools', 'slates', 'ui', 'server', 'cli', 'conformance', 'langgraph'];

/**
 * The child's environment without the `npm_*` variables of the `npm test` that runs this file
 * (they name the checkout's workspace and config, which must not leak into the temp project).
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

async function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  const { spawn } = await import('node:child_process');
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

let root: string;
let project: string;
let tarballs: string[];
let packOutput: string;
const timings: Record<string, number> = {};

/** npm's settings for the README's commands: the cache `npm ci` filled, no audit or funding chatter. */
const NPM_OFFLINE = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

/** A README block with the test's folders for the paths it names. */
async function readmeCommands(name: string, paths: Record<string, string>): Promise<string> {
  let block = await readmeBlock(name);
  for (const [printed, actual] of Object.entries(paths)) {
    expect(block, `the ${name} block names ${printed}`).toContain(printed);
    block = block.replaceAll(printed, actual);
  }
  return ['set -euo pipefail', block].join('\n');
}

beforeAll(async () => {
  root = await tempDir('install');
  // Two levels that do not exist: the block must create the destination itself.
  const packed = path.join(root, 'not-yet', 'stateflow-packs');
  project = path.join(root, 'project');
  await mkdir(project);
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-stateflow', private: true, type: 'module' }));
  const script = path.join(root, 'pack.sh');
  await writeFile(script, await readmeCommands('pack', { '/tmp/stateflow-packs': packed, '/path/to/your/project': project }));
  const started = Date.now();
  const pack = await run('bash', [script], REPO_ROOT, NPM_OFFLINE);
  timings.packAndInstall = Date.now() - started;
  expect(pack.code, pack.stderr).toBe(0);
  packOutput = pack.stdout;
  tarballs = (await readdir(packed)).sort().map((file) => path.join(packed, file));
  console.log(`README pack block (build, pack, install, npx stateflow --help): ${timings.packAndInstall} ms (${tarballs.length} tarballs)`);
});

afterAll(async () => {
  await removeDir(root);
});

describe('npm pack and install into an empty project', () => {
  it('packs one tarball per package with real versions of the workspace dependencies', async () => {
    expect(tarballs.map((file) => path.basename(file))).toEqual(PACKAGES.map((p) => `stateflow-${p}-0.1.0.tgz`).sort());
    for (const name of PACKAGES) {
      const manifest = JSON.parse(await readFile(path.join(project, 'node_modules/@stateflow', name, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const installed = path.join(project, 'node_modules/@stateflow', name);
      expect(existsSync(path.join(installed, 'README.md')), `${name} ships its README`).toBe(true);
      expect(existsSync(path.join(installed, 'dist/index.js')), `${name} ships dist/`).toBe(true);
      expect(existsSync(path.join(installed, 'dist/tsconfig.tsbuildinfo')), `${name} ships no build info`).toBe(false);
      for (const [dep, spec] of Object.entries(manifest.dependencies ?? {})) {
        if (dep.startsWith('@stateflow/')) expect(spec, `${name} → ${dep}`).toBe('0.1.0');
      }
    }
  });

  it("runs the README's library example with the installed packages", async () => {
    const code = await readmeBlock('library', 'js');
    expect(code, 'README.md has a library block').toBeDefined();
    await writeFile(path.join(project, 'example.mjs'), code as string);
    const result = await run(process.execPath, ['example.mjs'], project, { STATEFLOW_DIR: path.join(root, 'store') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['{"value":"draft"}', '{"patch":{"next":"review"}}', '2 0']);
  });

  it("imports every package's entry point (each declares what it needs)", async () => {
    for (const name of PACKAGES) {
      const result = await run(process.execPath, ['--input-type=module', '-e', `const m = await import('@stateflow/${name}'); console.log(Object.keys(m).length);`], project);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(Number(result.stdout.trim()), name).toBeGreaterThan(0);
    }
  });

  it('`npx stateflow --help` (the block\'s last command) runs the installed bin, and it reads the store the example wrote', async () => {
    expect(packOutput).toMatch(/^Usage: stateflow \[options\] \[command\]/m);
    const log = await run('npx', ['--no-install', 'stateflow', '--dir', path.join(root, 'store'), '--json', 'log'], project);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('runs the README\'s LangGraph install line and lines in the project; the installed stateflow decodes the thread', async () => {
    const install = await run('bash', ['-c', await readmeCommands('langgraph-install', {})], project, NPM_OFFLINE);
    expect(install.code, install.stderr).toBe(0);
    const code = await readmeBlock('langgraph', 'js');
    await writeFile(path.join(project, 'graph.mjs'), `${await readmeBlock('langgraph-workflow', 'js')}\n${code}`);
    const dir = path.join(root, 'langgraph-store');
    const result = await run(process.execPath, ['graph.mjs'], project, { STATEFLOW_DIR: dir });
    expect(result.code, result.stderr).toBe(0);
    const log = await run('npx', ['--no-install', 'stateflow', '--dir', dir, '--json', 'log', '--stream', 'langgraph:chat-1'], project);
    const last = JSON.parse(log.stdout.trim().split('\n').at(-1) ?? '{}') as { seq: number };
    const shown = await run('npx', ['--no-install', 'stateflow', '--dir', dir, '--json', 'show', String(last.seq)], project);
    expect(shown.code, shown.stderr).toBe(0);
    const messages = (JSON.parse(shown.stdout) as { changes: { checkpoint: { channel_values: { messages: { appended: { type: string; content: string }[] } } } }[] }).changes[0]?.checkpoint.channel_values.messages;
    expect(messages?.appended.map((m) => [m.type, m.content])).toEqual([['ai', 'you said hi']]);
  });
});

/** The packages a server and the CLI need, without their optional peers (LangGraph, the OTel SDK). */
const WITHOUT_OPTIONAL_PEERS = PACKAGES.filter((name) => name !== 'langgraph' && name !== 'conformance');

/** A module run in the lean project: a server on a memory store, its answers, and a traced start. */
const LEAN_SERVER = `
import { openMemoryStore } from '@stateflow/store';
import { startServer } from '@stateflow/server';
const store = await openMemoryStore();
await store.publish({ changes: { 'langgraph:t': { a: 1 } } });
const server = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
const answer = async (path) => { const r = await fetch(server.url + path); return [r.status, (await r.json()).error?.code ?? 'ok']; };
const steps = await fetch(server.url + '/v1/history/langgraph-steps?stream=langgraph:t');
const traced = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined, env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' } }).then(
  async (started) => (await started.close(), 'started'),
  (err) => ({ code: err.code, details: err.details }),
);
console.log(JSON.stringify({ head: await answer('/v1/store/head?stream=langgraph:t'), steps: [steps.status, (await steps.json()).error], traced }));
await server.close();
await store.close();
`;

describe('the server and the CLI installed without their optional peers', () => {
  let lean: string;
  beforeAll(async () => {
    lean = path.join(root, 'lean');
    await mkdir(lean);
    await writeFile(path.join(lean, 'package.json'), JSON.stringify({ name: 'lean-stateflow', private: true, type: 'module' }));
    const packs = WITHOUT_OPTIONAL_PEERS.map((name) => tarballs.find((file) => path.basename(file) === `stateflow-${name}-0.1.0.tgz`) as string);
    const install = await run('npm', ['install', ...packs], lean, NPM_OFFLINE);
    expect(install.code, install.stderr).toBe(0);
  });

  it('installs neither LangGraph (nor LangChain) nor the OpenTelemetry SDK', () => {
    for (const absent of ['@stateflow/langgraph', '@langchain/core', '@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/context-async-hooks']) {
      expect(existsSync(path.join(lean, 'node_modules', absent)), absent).toBe(false);
    }
    expect(existsSync(path.join(lean, 'node_modules/@opentelemetry/api')), 'the API the libraries trace through stays').toBe(true);
  });

  it('serves; the LangGraph steps view answers 501 PACKAGE_NOT_INSTALLED, and tracing asked for refuses to start', async () => {
    await writeFile(path.join(lean, 'server.mjs'), LEAN_SERVER);
    const result = await run(process.execPath, ['server.mjs'], lean);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      head: [200, 'ok'],
      steps: [501, { code: 'PACKAGE_NOT_INSTALLED', type: 'server_error', message: expect.stringContaining('npm install @stateflow/langgraph'), details: { package: '@stateflow/langgraph', feature: 'The LangGraph steps view (GET /v1/history/langgraph-steps)', requestId: expect.any(String) } }],
      traced: { code: 'PACKAGE_NOT_INSTALLED', details: { package: expect.stringMatching(/^@opentelemetry\//), feature: 'Exporting traces (OTEL_EXPORTER_OTLP_ENDPOINT)' } },
    });
  });

  it('the CLI shows a LangGraph stream stored (--stored) and refuses to decode it with PACKAGE_NOT_INSTALLED (exit 1)', async () => {
    const dir = path.join(root, 'lean-store');
    const stateflow = (...args: string[]) => run('npx', ['--no-install', 'stateflow', '--dir', dir, ...args], lean);
    const patched = await stateflow('--cwd', '/work', '--json', 'patch', '{"tactics": {"next": "x"}}');
    expect(patched.code, patched.stderr).toBe(0);
    const forked = await stateflow('fork', 'cwd:/work', 'langgraph:t');
    expect(forked.code, forked.stderr).toBe(0);
    const stored = await stateflow('--json', 'show', '--stored', '2');
    expect(stored.code, stored.stderr).toBe(0);
    expect((JSON.parse(stored.stdout) as { changes: { stream: string }[] }).changes.map((c) => c.stream)).toEqual(['langgraph:t']);
    const decoded = await stateflow('show', '2');
    expect(decoded.code).toBe(1);
    expect(decoded.stderr).toMatch(/needs the package @stateflow\/langgraph, which is not installed: npm install @stateflow\/langgraph .*\[PACKAGE_NOT_INSTALLED\]/);
  });

  it('traces once the server README\'s SDK install line has run there', async () => {
    const install = await run('bash', ['-c', await readmeBlock('otel-install', 'sh', 'packages/server/README.md')], lean, NPM_OFFLINE);
    expect(install.code, install.stderr).toBe(0);
    const result = await run(process.execPath, ['server.mjs'], lean);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { traced: unknown }).traced).toBe('started');
  });
});
