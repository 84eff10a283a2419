/**
 * The README cannot rot: the five-minute tour in README.md (the fenced block between
 * `<!-- tour:begin` and `<!-- tour:end -->`) runs here as one bash script, from the checkout root,
 * against the BUILT bin and a store in a temp directory; every command must succeed and the
 * outputs are checked. The import-git example from the README's prose runs too.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonEqual, type JsonObject } from '@stateflow/core';
import { HISTORIES, REPO_ROOT, historiesAvailable, removeDir, runProcess, tempDir } from './helpers.js';

const README = path.join(REPO_ROOT, 'README.md');

/** The tour's shell text: the ```sh fence between the tour markers. */
async function tourScript(): Promise<string> {
  const text = await readFile(README, 'utf8');
  const block = /<!-- tour:begin[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- tour:end -->/.exec(text);
  if (block?.[1] === undefined) throw new Error(`${README} has no tour block between <!-- tour:begin --> and <!-- tour:end -->`);
  return block[1];
}

/** The script with each `stateflow` command echoed as `$ command` before it runs. */
function transcriptScript(tour: string): string {
  const lines = tour.split('\n').map((line) =>
    line.startsWith('stateflow ') ? `printf '%s\\n' ${shellQuote(`$ ${line}`)}\n${line}` : line,
  );
  return ['set -euo pipefail', ...lines].join('\n');
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Split a transcript into `{ command, output }` steps. */
function steps(transcript: string): { command: string; output: string }[] {
  return transcript
    .split(/^\$ /m)
    .slice(1)
    .map((chunk) => {
      const newline = chunk.indexOf('\n');
      return { command: chunk.slice(0, newline), output: chunk.slice(newline + 1) };
    });
}

async function distinctDocs(file: string): Promise<JsonObject[]> {
  const docs: JsonObject[] = [];
  for await (const line of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    const { doc } = JSON.parse(line) as { doc: JsonObject };
    const last = docs[docs.length - 1];
    if (last === undefined || !jsonEqual(last, doc)) docs.push(doc);
  }
  return docs;
}

const available = historiesAvailable(['eslint-package-json.jsonl']);

(available ? describe : describe.skip)('README five-minute tour', () => {
  let root: string;
  let transcript: string;
  let code: number;
  let stderr: string;

  beforeAll(async () => {
    root = await tempDir();
    const script = path.join(root, 'tour.sh');
    await writeFile(script, transcriptScript(await tourScript()));
    const result = await runProcess('bash', [script], { cwd: REPO_ROOT, env: { STATEFLOW_DIR: path.join(root, 'store') } });
    ({ code, stderr } = result);
    transcript = result.stdout;
    // The transcript is kept beside the store for the closing note and for debugging.
    await writeFile(path.join(root, 'transcript.txt'), transcript);
  });

  afterAll(async () => {
    await removeDir(root);
  });

  it('runs every command of the tour successfully', () => {
    expect(code, `${stderr}\n${transcript}`).toBe(0);
    expect(steps(transcript).length).toBeGreaterThanOrEqual(14);
  });

  it('shows cwd revision 1 with each projection', () => {
    const byCommand = new Map(steps(transcript).map((step) => [step.command, step.output]));
    const output = (command: string) => {
      const text = byCommand.get(command);
      if (text === undefined) throw new Error(`tour has no step "${command}"`);
      return JSON.parse(text) as unknown;
    };
    expect(output("stateflow read 'cwd[1]'")).toEqual({
      value: { intents: { release: 'ship 1.0' }, lazy: { notes: ['first thought', 'second thought'] } },
    });
    expect(output("stateflow read 'cwd[1]' --projection keys")).toEqual({
      meta: { type: 'object', size: 2 },
      keys: { intents: 'object', lazy: 'object' },
    });
    expect(output("stateflow read 'cwd[1]' --projection patch")).toEqual({
      patch: { intents: { release: 'ship 1.0' }, lazy: { notes: ['first thought', 'second thought'] } },
    });
    expect(output("stateflow read 'cwd[2].lazy.notes' --projection patch")).toEqual({ patch: { '[1]': 'corrected thought' } });
    expect(output('stateflow diff "cwd:$PWD" 1 2')).toEqual({
      lazy: { notes: { '[1]': 'corrected thought' } },
      tactics: { next: 'write the changelog' },
    });
  });

  it('logs, audits clean, and reads old revisions of the imported real history', async () => {
    const all = steps(transcript);
    const log = all.find((step) => step.command === 'stateflow log');
    expect(log?.output.split('\n')[0]).toMatch(/^SEQ\s+TIME\s+STREAM\s+REV\s+PATCH$/);
    const audits = all.filter((step) => step.command === 'stateflow audit');
    expect(audits).toHaveLength(2);
    for (const audit of audits) expect(audit.output).toMatch(/: clean\n$/);
    const imported = all.find((step) => step.command.startsWith('stateflow import '));
    expect(imported?.output.split('\n')[0]).toBe(`imported 1288 revisions into cwd:${REPO_ROOT}/eslint at lazy.manifest: rev 1..1288; skipped 5`);
    const docs = await distinctDocs(path.join(HISTORIES, 'eslint-package-json.jsonl'));
    const versions = all.find((step) => step.command.includes("'cwd[100].lazy.manifest.version'"));
    expect(JSON.parse(versions?.output ?? 'null')).toEqual({ value: [docs[99]?.['version'], docs[999]?.['version']] });
    const keys = all.find((step) => step.command.includes("'cwd[100].lazy.manifest' --projection keys"));
    const kinds = JSON.parse(keys?.output ?? 'null') as { keys: Record<string, string> };
    expect(Object.keys(kinds.keys).sort()).toEqual(Object.keys(docs[99] ?? {}).sort());
    expect(all.some((step) => step.command.includes("'cwd[101].lazy.manifest' --projection patch"))).toBe(true);
  });

  it('runs the import-git example from the prose on this checkout', async () => {
    const text = await readFile(README, 'utf8');
    const example = /`(stateflow import-git [^`]+)`/.exec(text)?.[1];
    expect(example).toBeDefined();
    const gitDir = await runProcess('git', ['-C', REPO_ROOT, 'rev-parse', '--git-dir']);
    if (gitDir.code !== 0) {
      console.warn('SKIPPED: the import-git example needs a git checkout of this repository');
      return;
    }
    const result = await runProcess(
      'bash',
      ['-c', `set -euo pipefail\nstateflow() { node packages/cli/dist/bin.js "$@"; }\n${example ?? ''}`],
      { cwd: REPO_ROOT, env: { STATEFLOW_DIR: path.join(root, 'git-store') } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^imported \\d+ revisions? into cwd:${REPO_ROOT.replace(/[/.]/g, '\\$&')}/self at lazy\\.manifest: rev 1\\.\\.\\d+`));
  });
});


describe('README paths', () => {
  it('names only files and folders of this checkout that exist (`packages/…`, `examples/…` are from the root)', async () => {
    const text = await readFile(README, 'utf8');
    const paths = [...text.matchAll(/`((?:packages|test|bench)\/[A-Za-z0-9_./-]+)`/g)].map((match) => match[1] ?? '');
    expect(paths).toContain('packages/cli/examples/ladders/demo/notes.yaml');
    for (const relative of new Set(paths)) await expect(access(path.join(REPO_ROOT, relative)), relative).resolves.toBeUndefined();
  });
});
