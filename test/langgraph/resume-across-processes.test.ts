/**
 * A real LangGraph StateGraph (plan → write → review interrupt → publish) on a LevelDB store:
 * run it in one process up to the interrupt and kill that process (SIGKILL: the store is never
 * closed); approve in a new process from the store alone; read the history, fork from the
 * checkpoint before review with updateState and run the fork; then, in this process, read the
 * branches back, audit, and read the thread with `stateflow log`, `show`, `diff` and `audit`.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@stateflow/store-leveldb';
import { StateflowSaver } from '@stateflow/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, runProcess, stateflow, tempDir } from '../cli/helpers.js';
import { buildAgent } from './agent-graph.mjs';

const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'agent-process.mjs');
const THREAD = 'essay-1';

/** Start `agent-process.mjs start`, wait for its first line, then SIGKILL it. */
async function runUntilInterruptThenKill(dir: string): Promise<{ interrupt: unknown; next: string[] }> {
  const child = spawn(process.execPath, [AGENT, 'start', dir, THREAD, 'event sourcing'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal === 'SIGKILL' ? null : _code)));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then((code) => reject(new Error(`agent exited (${code}) before printing: ${stderr}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBeNull();
  return JSON.parse(first) as { interrupt: unknown; next: string[] };
}

let root: string;
let dir: string;
let resumed: {
  approved: string[];
  history: Array<{ id: string; step: number; source: string; next: string[] }>;
  beforeReview: string;
  fork: string;
  forkInterrupt: unknown;
  rejected: string[];
  rejectedDraft: { body: string };
  audit: { problems: unknown[]; transitions: number };
};

beforeAll(async () => {
  root = await tempDir();
  dir = path.join(root, 'store');
  const started = await runUntilInterruptThenKill(dir);
  expect(started).toEqual({ interrupt: { question: 'Publish this draft?', title: 'On event sourcing' }, next: ['review'] });
  const result = await runProcess(process.execPath, [AGENT, 'resume', dir, THREAD]);
  expect(result.code, result.stderr).toBe(0);
  resumed = JSON.parse(result.stdout);
});
afterAll(async () => {
  await removeDir(root);
});

describe('a LangGraph agent across processes on LevelDB', () => {
  it('resumes in a new process from the store: the approval runs review and publish', () => {
    expect(resumed.approved).toEqual(['event sourcing', 'plan: write about event sourcing', 'draft ready', 'yes', 'published: On event sourcing']);
    expect(resumed.history.map((s) => [s.source, s.step, s.next])).toEqual([
      ['loop', 4, []],
      ['loop', 3, ['publish']],
      ['loop', 2, ['review']],
      ['loop', 1, ['write']],
      ['loop', 0, ['plan']],
      ['input', -1, ['__start__']],
    ]);
  });

  it('forks from the checkpoint before review; the fork runs on its own branch', () => {
    expect(resumed.forkInterrupt).toEqual({ question: 'Publish this draft?', title: 'On event sourcing' });
    expect(resumed.rejected).toEqual(['event sourcing', 'plan: write about event sourcing', 'draft ready', 'no', 'discarded']);
    expect(resumed.rejectedDraft.body).toBe('Shorter.');
    expect(resumed.audit.problems).toEqual([]);
  });

  it('reads both branches back in a third process; the original branch stays reachable; audit is clean', async () => {
    const store = await openStore(dir);
    try {
      const agent = buildAgent(new StateflowSaver(store));
      const config = { configurable: { thread_id: THREAD } };
      const history = [];
      for await (const s of agent.getStateHistory(config)) history.push(s);
      const parentOf = new Map(history.map((s) => [s.config.configurable?.['checkpoint_id'], s.parentConfig?.configurable?.['checkpoint_id']]));
      expect(parentOf.get(resumed.fork)).toBe(resumed.beforeReview);
      // The head is the fork's last checkpoint; the approved branch's last checkpoint is still there.
      expect((await agent.getState(config)).values.approved).toBe(false);
      const published = await agent.getState({ configurable: { thread_id: THREAD, checkpoint_id: resumed.history[0]?.id } });
      expect(published.values.approved).toBe(true);
      expect(published.values.messages.at(-1).content).toBe('published: On event sourcing');
      // Every checkpoint reaches the thread's first one through its parents.
      const first = resumed.history.at(-1)?.id;
      for (const s of history) {
        let id = s.config.configurable?.['checkpoint_id'] as string | undefined;
        while (parentOf.get(id) !== undefined) id = parentOf.get(id);
        expect(id).toBe(first);
      }
      expect(await store.audit()).toMatchObject({ problems: [] });
    } finally {
      await store.close();
    }
  });

  it('is a history `stateflow log`, `show`, `diff` and `audit` understand', async () => {
    const stream = `langgraph:${THREAD}`;
    const log = await stateflow(['log', '--dir', dir, '--stream', stream, '--json']);
    expect(log.code, log.stderr).toBe(0);
    const transitions = log.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const puts = transitions.filter((t) => t.meta.langgraph.op === 'put');
    expect(puts.map((t) => [t.meta.langgraph.metadata.source, t.meta.langgraph.metadata.step])).toEqual([
      ['input', -1],
      ['loop', 0],
      ['loop', 1],
      ['loop', 2],
      ['loop', 3],
      ['loop', 4],
      ['update', 3],
      ['loop', 4],
      ['loop', 5],
    ]);
    expect(transitions.every((t) => t.meta.langgraph.thread_id === THREAD)).toBe(true);

    // The revision that put the "write" step's checkpoint appended one message and the draft:
    // decoded as LangGraph shows them, and as stored (a net patch of the mapped values).
    const writeStep = puts[3];
    const shown = await stateflow(['show', String(writeStep.seq), '--dir', dir, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const decoded = JSON.parse(shown.stdout).changes[0].checkpoint.channel_values;
    expect(decoded.messages.appended).toEqual([expect.objectContaining({ type: 'ai', content: 'draft ready' })]);
    expect(decoded.draft.after).toEqual({ title: 'On event sourcing', body: 'First draft.', revision: 1 });
    const stored = await stateflow(['show', String(writeStep.seq), '--stored', '--dir', dir, '--json']);
    const change = JSON.parse(stored.stdout).changes[0];
    expect(change.patch.channels.messages.value).toMatchObject({ $len: 3, '2': { kwargs: { content: 'draft ready' } } });
    expect(change.patch.channels.draft.value).toEqual({ title: 'On event sourcing', body: 'First draft.', revision: 1 });

    // The fork's update changed the draft's body, and left the messages as they were before the review.
    const update = puts[6];
    const revs = [String(update.changes[0].rev - 1), String(update.changes[0].rev)];
    const diff = await stateflow(['diff', stream, ...revs, '--dir', dir, '--json']);
    expect(diff.code, diff.stderr).toBe(0);
    const channels = JSON.parse(diff.stdout).channel_values;
    expect(channels.draft.after).toMatchObject({ body: 'Shorter.' });
    expect(channels.draft.before.body).not.toBe('Shorter.');
    // The fork starts again from before the review: the two messages after it are gone.
    expect(channels.messages.removed.map((m: { content: string }) => m.content)).toEqual(['yes', 'published: On event sourcing']);
    const storedDiff = await stateflow(['diff', stream, ...revs, '--stored', '--dir', dir, '--json']);
    expect(JSON.parse(storedDiff.stdout).channels.draft).toEqual({ version: expect.anything(), value: { body: 'Shorter.' } });

    const audit = await stateflow(['audit', '--dir', dir, '--json']);
    expect(audit.code, audit.stdout).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ problems: [] });
  });
});
