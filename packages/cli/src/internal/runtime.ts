/**
 * The agent surface (`@stateflow/tools`) over the store of one CLI run. The package (and the
 * client's HTTP calls) is loaded when a command runs, so other commands start without it.
 *
 * Through a server, reads run here over the server's store API, but `patch_state` runs in the
 * server (`POST /v1/state/patch`): there it is queued with every other writer of the store (MCP
 * agents, the state API), so a CLI patch never loses a CAS race against busy agents. The answer
 * is the same receipt, and its `Stateflow-Transition` header names the transition published.
 */
import type { ServerEndpoint } from '@stateflow/client';
import type { Store } from '@stateflow/store';
import type { PatchCallOptions, PatchStateResult, Runtime } from '@stateflow/tools';
import type { GlobalOptions } from '../global-options.js';
import { withStore, type StoreAccess } from './store-access.js';

const UNCAPPED = { maxReadPaths: Number.MAX_SAFE_INTEGER, maxResponseBytes: Number.MAX_SAFE_INTEGER };

/**
 * Open the store (through its server when one holds it), build the tools runtime for the
 * selected owners, run `work`, close the store. The read caps of the tools are transport
 * ceilings for shared servers (HTTP, MCP); the CLI answers its own user on stdout, so a
 * `stateflow read` of many or large paths is not capped.
 */
export async function withRuntime<T>(options: GlobalOptions, access: StoreAccess, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const [{ createRuntime }, { isJsonObject }] = await Promise.all([import('@stateflow/tools'), import('@stateflow/core')]);
  return withStore(options, access, async (store, server) => {
    const runtime = createRuntime({ store, selection: options.selection, ...UNCAPPED });
    if (server === null) return work(runtime);
    return work({
      ...runtime,
      patchState: (input, call) =>
        isJsonObject(input) ? patchThroughServer(server, store, { ...input, selection: options.selection }, call) : runtime.patchState(input, call),
    });
  });
}

async function patchThroughServer(server: ServerEndpoint, store: Store, body: object, call: PatchCallOptions = {}): Promise<PatchStateResult> {
  const { TRANSITION_HEADER, callServer } = await import('@stateflow/client');
  const { body: receipt, headers } = await callServer<PatchStateResult>(server, 'v1/state/patch', { body });
  const seq = headers.get(TRANSITION_HEADER);
  if (seq !== null && call.onPublished !== undefined) call.onPublished(await store.transition(Number(seq)));
  return receipt;
}
