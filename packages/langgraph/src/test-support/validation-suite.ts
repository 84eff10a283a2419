/**
 * The official LangGraph checkpointer validation suite (`@langchain/langgraph-checkpoint-validation`)
 * against `StateflowSaver` on one backend, with write fencing on (the default).
 *
 * The package's `validate-checkpointer` CLI fails before it runs a test (its runner imports a
 * schema its published build does not export), so we call its exported spec functions from our
 * own vitest files. They use vitest's globals (`describe`, `it`, `expect`, hooks): this
 * package's vitest config turns globals on. `specTest` runs every group it has (put,
 * putWrites, getTuple, list, deleteThread); `deltaChannelHistoryTests` is opt-in and runs
 * here too. No test is skipped: the suite's own skip lists name other savers only.
 */
import { deltaChannelHistoryTests, specTest } from '@langchain/langgraph-checkpoint-validation';
import type { CheckpointSaverTestInitializer } from '@langchain/langgraph-checkpoint-validation';
import { setShape } from '@stateflow/store';
import type { ShapeVersionInput } from '@stateflow/store';
import { StateflowSaver } from '../stateflow-saver.js';
import type { NamedBackend, UnavailableBackend } from './backends.js';

/**
 * Register the whole suite for `backend` (call it at the top level of a test file); for a
 * backend that is unavailable here, one skipped block whose title says why. `options.shapes`:
 * versions declared, in order, as the shape `suite` of `langgraph:*` on each new store before
 * the saver is made, so every write is checked and every read goes through the shape.
 */
export function validateOn(backend: NamedBackend | UnavailableBackend, options: { shapes?: ShapeVersionInput[] } = {}): void {
  if ('unavailable' in backend) {
    describe.skip(`StateflowSaver on ${backend.name} [skipped: ${backend.unavailable}]`, () => {
      it('runs the official validation suite', () => undefined);
    });
    return;
  }
  const destroyers = new Map<StateflowSaver, () => Promise<void>>();
  const initializer: CheckpointSaverTestInitializer<StateflowSaver> = {
    checkpointerName: `StateflowSaver on ${backend.name}${options.shapes === undefined ? '' : ' with a shape'}`,
    async createCheckpointer() {
      const { store, destroy } = await backend.open();
      for (const version of options.shapes ?? []) await setShape(store, 'suite', version);
      const saver = new StateflowSaver(store);
      destroyers.set(saver, destroy);
      return saver;
    },
    async destroyCheckpointer(saver) {
      await destroyers.get(saver)?.();
      destroyers.delete(saver);
    },
  };
  specTest(initializer);
  deltaChannelHistoryTests(initializer);
}
