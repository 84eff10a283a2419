/**
 * The agent surface (`@stateflow/tools`) over the store of one CLI run.
 */
import { createRuntime } from '@stateflow/tools';
import type { GlobalOptions } from './options.js';
import { withStore, type StoreAccess } from './store-access.js';

/** The runtime `createRuntime` returns. */
export type ToolsRuntime = Awaited<ReturnType<typeof createRuntime>>;

/** Open the store, build the tools runtime for the selected owners, run `work`, close the store. */
export async function withRuntime<T>(
  options: GlobalOptions,
  access: StoreAccess,
  work: (runtime: ToolsRuntime) => Promise<T>,
): Promise<T> {
  return withStore(options.dir, access, async (store) => work(await createRuntime({ store, selection: options.selection })));
}
