/**
 * The root README's "Use with LangGraph.js" lines run as an ES module from the checkout root
 * (so the workspace packages resolve), after a prelude that defines the `workflow` they name: a
 * one-node StateGraph that answers the last message. The thread they write must then be in the
 * store, readable by the CLI and audit-clean.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, removeDir, runProcess, stateflow, tempDir } from '../cli/helpers.js';

let root: string;
beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await removeDir(root);
});

describe('README "Use with LangGraph.js"', () => {
  it('is five lines that checkpoint a graph run into the store', async () => {
    const code = await readmeBlock('langgraph', 'js');
    expect(code, 'README.md has a langgraph block').toBeDefined();
    expect((code as string).trim().split('\n')).toHaveLength(5);
    const dir = path.join(root, 'store');
    const result = await runProcess(process.execPath, ['--input-type=module', '-e', `${await readmeBlock('langgraph-workflow', 'js')}\n${code as string}`], {
      env: { STATEFLOW_DIR: dir },
    });
    expect(result.code, result.stderr).toBe(0);

    const log = await stateflow(['log', '--dir', dir, '--stream', 'langgraph:chat-1', '--json']);
    expect(log.code, log.stderr).toBe(0);
    const puts = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).meta.langgraph)
      .filter((m) => m.op === 'put');
    expect(puts.map((m) => [m.metadata.source, m.metadata.step])).toEqual([
      ['input', -1],
      ['loop', 0],
      ['loop', 1],
    ]);
    const lastSeq = String(JSON.parse(log.stdout.trim().split('\n').at(-1) as string).seq);
    // As the README says: show and diff decode the thread, --stored shows what the store keeps.
    const head = JSON.parse((await stateflow(['show', lastSeq, '--dir', dir, '--json'])).stdout);
    const appended = head.changes[0].checkpoint.channel_values.messages.appended as { type: string; content: string }[];
    expect(appended.map((m) => [m.type, m.content])).toEqual([['ai', 'you said hi']]);
    const stored = JSON.parse((await stateflow(['show', lastSeq, '--stored', '--dir', dir, '--json'])).stdout);
    expect(JSON.stringify(stored.changes[0].patch)).toContain('"$len":2');
    expect(JSON.stringify(stored.changes[0].patch)).toContain('you said hi');
    const rev = String(head.changes[0].rev);
    const whole = JSON.parse((await stateflow(['diff', 'langgraph:chat-1', '0', rev, '--dir', dir, '--json'])).stdout);
    expect((whole.channel_values.messages.after as { type: string }[]).map((m) => m.type)).toEqual(['human', 'ai']);
    expect(JSON.stringify(whole)).not.toMatch(/"\$len"|"\$null"|"lc":1/);
    expect(JSON.stringify(JSON.parse((await stateflow(['diff', 'langgraph:chat-1', '0', rev, '--stored', '--dir', dir, '--json'])).stdout))).toContain('"$len"');
    const audit = await stateflow(['audit', '--dir', dir]);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  });
});
