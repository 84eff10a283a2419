/**
 * Each CLI command loads only what it runs (cli README "Start-up"; the time this saves is
 * measured in bench/RESULTS.md "CLI start-up", never asserted here): the BUILT bin runs under a
 * module hook that records every module it resolves, and the test checks which packages a
 * command loaded. `--version` loads no store code; `log` on a LevelDB store loads the store and
 * the client but not PostgreSQL's driver, the tools, the server, the ladder runtime, LangGraph,
 * the progress bar library or the HTTP contract's schemas (TypeBox).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, expectOk, removeDir, runProcess, stateflow, tempDir } from './helpers.js';

let root: string;
let hook: string;
let store: string;

beforeAll(async () => {
  root = await tempDir();
  // Registered with --import: every module URL resolved is appended to $MODULE_LOG.
  await writeFile(
    path.join(root, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.MODULE_LOG, result.url + '\\n');
  return result;
}`,
  );
  hook = path.join(root, 'register.mjs');
  await writeFile(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(root, 'hooks.mjs')).href)});\n`);
  store = path.join(root, 'store');
  for (const n of [1, 2]) expectOk(await stateflow(['--dir', store, '--cwd', '/p', 'patch', JSON.stringify({ lazy: { n } })]));
});

afterAll(async () => {
  await removeDir(root);
});

/** The packages (`@stateflow/x` for the workspace's, else the npm name) whose modules `args` loaded. */
async function packagesLoaded(args: string[]): Promise<Set<string>> {
  const log = path.join(root, `modules-${args.join('-').replace(/[^a-z0-9-]/gi, '')}.txt`);
  await writeFile(log, '');
  expectOk(await runProcess(process.execPath, ['--import', hook, BIN, ...args], { env: { MODULE_LOG: log } }));
  const names = new Set<string>();
  for (const url of (await readFile(log, 'utf8')).split('\n')) {
    const workspace = /\/packages\/([^/]+)\/dist\/(.+)$/.exec(url);
    const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (workspace !== null) names.add(`@stateflow/${workspace[1]}${workspace[1] === 'store-postgres' && workspace[2] === 'store-url.js' ? '/location' : ''}`);
    else if (dependency !== null) names.add(dependency[1] ?? '');
  }
  return names;
}

/**
 * Packages no store command on LevelDB needs. The client takes its types from the server's HTTP
 * contract and loads none of its schemas, so TypeBox never loads.
 */
const NEVER_FOR_LOG = ['@stateflow/tools', '@stateflow/server', '@stateflow/slates', '@stateflow/langgraph', '@stateflow/store-postgres', 'pg', 'cli-progress', '@langchain/core', '@sinclair/typebox'];

describe('start-up loads only what the command runs', () => {
  it('--version loads commander and the CLI, no store code', async () => {
    const loaded = await packagesLoaded(['--version']);
    expect(loaded).toContain('commander');
    for (const name of ['@stateflow/store', '@stateflow/store-leveldb', '@stateflow/client', 'classic-level', 'msgpackr', ...NEVER_FOR_LOG]) expect(loaded, name).not.toContain(name);
  });

  it('log on a LevelDB store loads the store and the client, not PostgreSQL, tools, server, ladders, LangGraph or progress bars', async () => {
    const loaded = await packagesLoaded(['--dir', store, 'log']);
    for (const name of ['@stateflow/store', '@stateflow/store-leveldb', '@stateflow/client', 'classic-level']) expect(loaded, name).toContain(name);
    for (const name of NEVER_FOR_LOG) expect(loaded, name).not.toContain(name);
  });

  it('show of a transition that changed no LangGraph stream does not load LangGraph', async () => {
    const loaded = await packagesLoaded(['--dir', store, 'show', '2']);
    for (const name of NEVER_FOR_LOG) expect(loaded, name).not.toContain(name);
  });
});
