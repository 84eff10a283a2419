/**
 * The agent surface (`@stateflow/tools`) over the store of one CLI run. The package is loaded
 * when a command needs it, so store-only commands start without it.
 */
import type { Store } from '@stateflow/store';
import type { Runtime } from '@stateflow/tools';
import type { GlobalOptions } from './options.js';
import { withStore, type StoreAccess } from './store-access.js';

/**
 * Open the store, build the tools runtime for the selected owners, run `work` (which also gets
 * the store the runtime uses), close the store.
 */
export async function withRuntime<T>(
  options: GlobalOptions,
  access: StoreAccess,
  work: (runtime: Runtime, store: Store) => Promise<T>,
): Promise<T> {
  const { createRuntime } = await import('@stateflow/tools');
  return withStore(options.dir, access, async (store) => work(await createRuntime({ store, selection: options.selection }), store));
}
