/**
 * The agent surface (`@stateflow/tools`) over the store of one CLI run. The package is loaded
 * when a command needs it, so store-only commands start without it.
 */
import type { Store } from '@stateflow/store';
import type { Runtime } from '@stateflow/tools';
import type { GlobalOptions } from './options.js';
import { withStore, type StoreAccess } from './store-access.js';

const UNCAPPED = { maxReadPaths: Number.MAX_SAFE_INTEGER, maxResponseBytes: Number.MAX_SAFE_INTEGER };

/**
 * Open the store, build the tools runtime for the selected owners, run `work` (which also gets
 * the store the runtime uses), close the store. The read caps of the tools are transport
 * ceilings for shared servers (HTTP, MCP); the CLI answers its own user on stdout, so a
 * `stateflow read` of many or large paths is not capped.
 */
export async function withRuntime<T>(
  options: GlobalOptions,
  access: StoreAccess,
  work: (runtime: Runtime, store: Store) => Promise<T>,
): Promise<T> {
  const { createRuntime } = await import('@stateflow/tools');
  return withStore(options.dir, access, async (store) => work(createRuntime({ store, selection: options.selection, ...UNCAPPED }), store));
}
