/**
 * The packages install outside the checkout: `npm pack` of every published package, then
 * `npm install` of all the tarballs into an empty project (third-party dependencies from the npm
 * cache that `npm ci` filled, `--prefer-offline`), where the README's library example runs as
 * its comments say, every package's entry point imports, and `npx stateflow --help` works.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, removeDir, REPO_ROOT, tempDir } from '../cli/helpers.js';

/** The published packages (every workspace under packages/). */
const PACKAGES = ['core', 'store', 'store-postgres', 'client', 'tools', 'slates', 'ui', 'server', 'cli', 'conformance', 'langgraph'];

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
const timings: Record<string, number> = {};

beforeAll(async () => {
  root = await tempDir('install');
  const packed = path.join(root, 'tarballs');
  await mkdir(packed);
  let started = Date.now();
  const pack = await run('npm', ['pack', '--silent', '--pack-destination', packed, ...PACKAGES.flatMap((p) => ['-w', `@stateflow/${p}`])], REPO_ROOT);
  timings.pack = Date.now() - started;
  expect(pack.code, pack.stderr).toBe(0);
  tarballs = (await readdir(packed)).sort().map((file) => path.join(packed, file));
  project = path.join(root, 'project');
  await mkdir(project);
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-stateflow', private: true, type: 'module' }));
  started = Date.now();
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], project);
  timings.install = Date.now() - started;
  expect(install.code, install.stderr).toBe(0);
  console.log(`pack ${timings.pack} ms, install ${timings.install} ms (${tarballs.length} tarballs)`);
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

  it('`npx stateflow --help` runs the installed bin, and it reads the store the example wrote', async () => {
    const help = await run('npx', ['--no-install', 'stateflow', '--help'], project);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: stateflow \[options\] \[command\]/);
    const log = await run('npx', ['--no-install', 'stateflow', '--dir', path.join(root, 'store'), '--json', 'log'], project);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout.trim().split('\n')).toHaveLength(2);
  });
});
