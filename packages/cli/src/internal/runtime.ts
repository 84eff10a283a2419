/**
 * The agent surface (`@stateflow/tools`) over the store of one CLI run. The package is loaded
 * when a command needs it, so store-only commands start without it.
 */
import type { Runtime } from '@stateflow/tools';
import type { GlobalOptions } from './options.js';
import { withStore, type StoreAccess } from './store-access.js';

/**
 * Open the store (through its server when one holds it), build the tools runtime for the
 * selected owners, run `work`, close the store.
 */
export async function withRuntime<T>(options: GlobalOptions, access: StoreAccess, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const { createRuntime } = await import('@stateflow/tools');
  return withStore(options.dir, access, async (store) => work(createRuntime({ store, selection: options.selection })));
}
