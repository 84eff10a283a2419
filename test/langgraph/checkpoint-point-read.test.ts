/**
 * A checkpoint id is a point read in any process (packages/langgraph README "Finding a
 * checkpoint"): a new process opens a LevelDB store on disk and reads an old checkpoint of a
 * long thread by id as its first call — the right checkpoint, with its writes and parent, and
 * not one transition read from the log to find it (the namespace's index stream points at it).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, tempDir } from '@stateflow/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'point-read-child.mjs');
const STEPS = 400;

interface ChildRead {
  values: Record<string, unknown> | null;
  pendingWrites: unknown[] | null;
  parent: string | null;
  transitionsRead: number;
}

async function readInNewProcess(dir: string, threadId: string, checkpointId: string): Promise<ChildRead> {
  const { stdout } = await promisify(execFile)(process.execPath, [CHILD, dir, threadId, checkpointId]);
  return JSON.parse(stdout.trim()) as ChildRead;
}

describe('a new process reads an old checkpoint by id', () => {
  let root: string;
  let dir: string;
  const configs: RunnableConfig[] = [];

  beforeAll(async () => {
    root = await tempDir();
    dir = path.join(root, 'store');
    const store = await openStore(dir);
    const saver = new StateflowSaver(store);
    let config: RunnableConfig = { configurable: { thread_id: 'long' } };
    for (let i = 1; i <= STEPS; i++) {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { step: i, log: Array.from({ length: i }, (_, k) => `line ${k}`) }, channel_versions: { step: i, log: i } };
      configs.push((config = await saver.put(config, checkpoint, { source: 'loop', step: i, parents: {} }, { step: i, log: i })));
      await saver.putWrites(config, [['step', i * 10]], `task-${i}`);
    }
    // A late write to an old checkpoint moves where its latest state is.
    await saver.putWrites(configs[10] as RunnableConfig, [['step', -11]], 'late-task');
    await store.close();
  }, 120_000);

  afterAll(async () => {
    await removeDir(root);
  });

  it('finds it without reading the log back to it, with its writes and parent', async () => {
    const target = configs[24] as RunnableConfig;
    const read = await readInNewProcess(dir, 'long', target.configurable?.['checkpoint_id'] as string);
    expect(read.values).toEqual({ step: 25, log: Array.from({ length: 25 }, (_, k) => `line ${k}`) });
    expect(read.pendingWrites).toEqual([['task-25', 'step', 250]]);
    expect(read.parent).toBe(configs[23]?.configurable?.['checkpoint_id']);
    expect(read.transitionsRead).toBe(0);
  });

  it('an old checkpoint written to after its children were put comes back with every write', async () => {
    const target = configs[10] as RunnableConfig;
    const read = await readInNewProcess(dir, 'long', target.configurable?.['checkpoint_id'] as string);
    expect(read.values).toEqual({ step: 11, log: Array.from({ length: 11 }, (_, k) => `line ${k}`) });
    expect(read.pendingWrites).toEqual([
      ['late-task', 'step', -11],
      ['task-11', 'step', 110],
    ]);
    expect(read.transitionsRead).toBe(0);
  });

  it('an id the thread never had is not found, and not looked for in the log', async () => {
    const read = await readInNewProcess(dir, 'long', uuid6(0));
    expect(read).toEqual({ values: null, pendingWrites: null, parent: null, transitionsRead: 0 });
  });
});
