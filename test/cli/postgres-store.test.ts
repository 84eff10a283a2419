/**
 * The CLI on a PostgreSQL store (cli README "Global options": `--store postgres://…`,
 * `STATEFLOW_STORE`), through the BUILT bin: the store commands on a PG URL, `replay` into
 * PostgreSQL all or nothing, and the round trip export from LevelDB → replay into PostgreSQL →
 * export byte-identical, and the reverse, on the shared real histories.
 *
 * PostgreSQL is the test server (`STATEFLOW_TEST_POSTGRES`), a fresh schema per store, dropped
 * after; without a server the suite is skipped visibly (under CI=true it fails). Without the
 * histories their round trip is skipped visibly (under CI=true it fails).
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@stateflow/core';
import { dropPostgresStore, parseTarget } from '@stateflow/store-postgres';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import { closeAll, stdioAgent } from '../multiprocess/processes.js';
import { BIN, expectOk, HISTORIES, historiesAvailable, json, jsonError, jsonLines, removeDir, stateflow, tempDir } from './helpers.js';

const server = await testPostgres();
const HISTORY_FILES = ['eslint-package-json.jsonl', 'matrix-react-sdk-en_EN-json.jsonl'];

describe.skipIf('unavailable' in server)('stateflow --store postgres://…', () => {
  let root: string;
  let proj: string;
  let cwdStream: string;
  const urls: string[] = [];
  /** A new store URL, dropped after the suite. */
  const freshUrl = (): string => {
    const url = freshPostgresUrl('cli');
    urls.push(url);
    return url;
  };
  let url: string;
  const sf = (args: string[]) => stateflow(['--store', url, ...args]);

  beforeAll(async () => {
    root = await tempDir();
    proj = path.join(root, 'proj');
    cwdStream = `cwd:${proj}`;
    url = freshUrl();
  });
  afterAll(async () => {
    for (const u of urls) await dropPostgresStore(u);
    await removeDir(root);
  });

  it('a reading command on a schema without a store is NOT_FOUND (exit 3) and creates nothing', async () => {
    const missing = freshUrl();
    const error = jsonError(await stateflow(['--store', missing, '--json', 'log']), 3);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('--store');
    expect(await schemaExists(missing)).toBe(false);
  });

  it('patch, read, log, show, diff, revert, fork, audit on the PostgreSQL store', async () => {
    expectOk(await sf(['--cwd', proj, 'patch', JSON.stringify({ tactics: { next: 'write tests' }, lazy: { memory: ['first thought', 'second thought'] } })]));
    expectOk(await sf(['--cwd', proj, 'patch', JSON.stringify({ lazy: { memory: { '[1]': 'corrected thought' } } })]));
    expectOk(await sf(['--cwd', proj, 'patch', JSON.stringify({ tactics: { next: 'ship' } })]));
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd.tactics.next', 'cwd[1].lazy.memory[1]'])))).toEqual({
      value: ['ship', 'second thought'],
    });
    const log = jsonLines(expectOk(await sf(['--json', 'log'])).stdout) as { seq: number; hash: string }[];
    expect(log.map((t) => t.seq)).toEqual([1, 2, 3]);
    const shown = json(expectOk(await sf(['--json', 'show', '2']))) as JsonObject;
    expect(shown).toMatchObject({ seq: 2, changes: [{ stream: cwdStream, rev: 2, patch: { lazy: { memory: { '[1]': 'corrected thought' } } } }] });
    expect(json(expectOk(await sf(['--json', 'diff', cwdStream, '2', '3'])))).toEqual({ tactics: { next: 'ship' } });
    expect(expectOk(await sf(['revert', cwdStream, '1'])).stdout).toBe(`reverted ${cwdStream} to rev 1: seq 4: ${cwdStream} rev 4\n`);
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd.tactics.next'])))).toEqual({ value: 'write tests' });
    const forked = json(expectOk(await sf(['--json', 'fork', cwdStream, 'session:s1', '--at', '2']))) as { status: string; transition: { seq: number } };
    expect(forked).toMatchObject({ status: 'accepted', transition: { seq: 5 } });
    expect(json(expectOk(await sf(['--session', 's1', '--json', 'read', 'session.lazy.memory[1]'])))).toEqual({ value: 'corrected thought' });
    expect(json(expectOk(await sf(['--json', 'audit'])))).toMatchObject({ transitions: 5, streams: 2, problems: [] });
  });

  it('never prints a password given in the URL: the serve banner and errors show the URL without it', async () => {
    const withPassword = new URL(url);
    withPassword.password = 'pw-must-not-show';
    const refused = await stateflow(['--store', withPassword.toString(), 'stop']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(parseTarget(url).location);
    expect(refused.stderr).not.toContain('pw-must-not-show');
    const child = spawn(process.execPath, [BIN, '--store', withPassword.toString(), 'serve', '--port', '0']);
    try {
      const banner: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        banner.push(line);
        if (line === 'stop with Ctrl-C') break;
      }
      expect(banner).toContain(`data: ${parseTarget(url).location}`);
      expect(banner.join('\n')).not.toContain('pw-must-not-show');
      // No discovery file on PostgreSQL: the banner says the token is in it, and gives it.
      const token = /#token=([A-Za-z0-9_-]+)$/.exec(banner.find((line) => line.startsWith('token: ')) ?? '')?.[1] ?? '';
      expect(banner).toContainEqual(expect.stringMatching(new RegExp(`^token: accepted \\(${token}: a server on PostgreSQL writes no discovery file, so only this banner has it`)));
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('a database that does not exist is NOT_FOUND { url, database } with the createdb line, not "no store"', async () => {
    const missing = new URL(url);
    missing.pathname = '/sf_no_such_database';
    const error = jsonError(await stateflow(['--store', missing.toString(), '--json', 'log']), 3);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toEqual({ url: parseTarget(missing.toString()).location, database: 'sf_no_such_database' });
    expect(error.message).toContain('createdb ');
  });

  it('STATEFLOW_STORE names the store when no --store or --dir is given; --store with --dir is USAGE', async () => {
    const result = expectOk(await stateflow(['--json', 'log'], { env: { STATEFLOW_STORE: url } }));
    expect((jsonLines(result.stdout) as { seq: number }[]).map((t) => t.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(jsonError(await stateflow(['--store', url, '--dir', path.join(root, 'x'), '--json', 'log']), 2).code).toBe('USAGE');
    expect(jsonError(await stateflow(['--dir', url, '--json', 'log']), 2).code).toBe('USAGE');
    expect(jsonError(await sf(['--json', 'stop']), 2).code).toBe('USAGE');
  });

  it('replay into PostgreSQL: a new schema gets the same export; a store there is refused; a tampered export leaves no schema', async () => {
    const exported = expectOk(await sf(['export'])).stdout;
    const file = path.join(root, 'export.jsonl');
    await writeFile(file, exported);
    const copy = freshUrl();
    const replayed = json(expectOk(await stateflow(['--store', copy, '--json', 'replay', file]))) as JsonObject;
    expect(replayed).toMatchObject({ transitions: 5, lastSeq: 5, problems: 0 });
    expect(expectOk(await stateflow(['--store', copy, 'export'])).stdout).toBe(exported);
    expect(jsonError(await stateflow(['--store', copy, '--json', 'replay', file]), 2).code).toBe('USAGE');

    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.at(-1) ?? '') as { changes: { patch: JsonObject }[] };
    last.changes[0] = { ...last.changes[0], patch: { tactics: { next: 'forged' } } } as never;
    lines[lines.length - 1] = JSON.stringify(last);
    const tampered = path.join(root, 'tampered.jsonl');
    await writeFile(tampered, `${lines.join('\n')}\n`);
    const forged = freshUrl();
    expect(jsonError(await stateflow(['--store', forged, '--json', 'replay', tampered]), 5).code).toBe('STORE_CORRUPT');
    expect(await schemaExists(forged)).toBe(false);
    expect(await stagingSchemas()).toEqual([]);
  });

  it('watch follows the PostgreSQL store itself: transitions published by other processes, in order', async () => {
    const child = spawn(process.execPath, [BIN, '--store', url, 'watch', '--from', '2', '--stream', 'global'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const next = async (): Promise<{ seq: number; changes: { stream: string }[] }> => {
        const line = await Promise.race([lines.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('watch printed nothing within 20 s')), 20_000))]);
        return JSON.parse(String(line.value)) as { seq: number; changes: { stream: string }[] };
      };
      expectOk(await sf(['--global', 'patch', JSON.stringify({ strategy: { watched: 1 } })]));
      expectOk(await sf(['--global', 'patch', JSON.stringify({ strategy: { watched: 2 } })]));
      const first = await next();
      const second = await next();
      expect(second.seq).toBe(first.seq + 1);
      expect([first, second].map((t) => t.changes.map((c) => c.stream))).toEqual([['global'], ['global']]);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('mcp serves MCP on the PostgreSQL store in its own process: two agents patch at once and nothing is lost', async () => {
    const agents = await Promise.all([stdioAgent(url, ['--global'], 'agent-a'), stdioAgent(url, ['--global'], 'agent-b')]);
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (agents[i % 2] as (typeof agents)[number]).callTool({ name: 'patch_state', arguments: { patch: { tactics: { [`mcp${i}`]: i } } } }),
        ),
      );
      expect(results.map((r) => r.isError === true)).toEqual(Array.from({ length: 10 }, () => false));
    } finally {
      await closeAll(agents);
    }
    const read = json(expectOk(await sf(['--global', '--json', 'read', 'global.tactics']))) as { value: Record<string, number> };
    expect(read.value).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`mcp${i}`, i])));
  });

  it('compact: history below the new origin is gone (exit 3); the audit stays clean', async () => {
    expect((json(expectOk(await sf(['--json', 'compact', cwdStream, '--keep', '1']))) as { origin: number }).origin).toBe(4);
    expect(jsonError(await sf(['--cwd', proj, '--json', 'read', 'cwd[1].lazy.memory']), 3).code).toBe('HISTORY_NOT_RETAINED');
    expect(json(expectOk(await sf(['--cwd', proj, '--json', 'read', 'cwd[4].tactics.next'])))).toEqual({ value: 'write tests' });
    expect(expectOk(await sf(['audit'])).stdout).toMatch(/: clean\n$/);
  });

  (historiesAvailable(HISTORY_FILES) ? describe : describe.skip).each(HISTORY_FILES)('round trip of the real history %s', (name) => {
    it('LevelDB export → replay into PostgreSQL → export is byte-identical, and PostgreSQL → LevelDB too', async () => {
      const level = path.join(root, `level-${name}`);
      expectOk(await stateflow(['--dir', level, '--cwd', '/proj', 'import', path.join(HISTORIES, name), '--stream', 'cwd:/proj', '--at', 'lazy.history']));
      const fromLevel = path.join(root, `${name}.level.jsonl`);
      expectOk(await stateflow(['--dir', level, 'export'], { stdoutFile: fromLevel }));
      const pgUrl = freshUrl();
      expectOk(await stateflow(['--store', pgUrl, 'replay', fromLevel]));
      const fromPg = path.join(root, `${name}.pg.jsonl`);
      expectOk(await stateflow(['--store', pgUrl, 'export'], { stdoutFile: fromPg }));
      const levelBytes = await readFile(fromLevel);
      expect(levelBytes.length).toBeGreaterThan(0);
      expect((await readFile(fromPg)).equals(levelBytes)).toBe(true);

      // The reverse: a store built on PostgreSQL (imported there) exported and replayed into LevelDB.
      const pgBuilt = freshUrl();
      expectOk(await stateflow(['--store', pgBuilt, '--cwd', '/proj', 'import', path.join(HISTORIES, name), '--stream', 'cwd:/proj', '--at', 'lazy.history']));
      const fromPgBuilt = path.join(root, `${name}.pg-built.jsonl`);
      expectOk(await stateflow(['--store', pgBuilt, 'export'], { stdoutFile: fromPgBuilt }));
      const copy = path.join(root, `copy-${name}`);
      expectOk(await stateflow(['--dir', copy, 'replay', fromPgBuilt]));
      const again = path.join(root, `${name}.again.jsonl`);
      expectOk(await stateflow(['--dir', copy, 'export'], { stdoutFile: again }));
      const pgBytes = await readFile(fromPgBuilt);
      expect((await readFile(again)).equals(pgBytes)).toBe(true);
      expect(expectOk(await stateflow(['--store', pgBuilt, 'audit'])).stdout).toMatch(/: clean\n$/);
    });
  });
});

/** Whether the schema of store `url` exists at all. */
async function schemaExists(url: string): Promise<boolean> {
  return (await adminQuery('SELECT 1 FROM pg_namespace WHERE nspname = $1', [parseTarget(url).schema])).length > 0;
}

/** Schemas a replay builds in and must not leave behind. */
async function stagingSchemas(): Promise<string[]> {
  return (await adminQuery("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'sf\\_building\\_%'", [])).map((row) => String(row['nspname']));
}

async function adminQuery(sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: (server as { url: string }).url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
