/**
 * One state tree at a time, for the history page: a level of a stream's state at a revision
 * (`/v1/history/node`), a level of the effective overlay as of a seq
 * (`/v1/history/effective-node`), and the history of one path (`/v1/history/path-history`).
 */
import { overlay } from '@stateflow/core';
import { NODE_PAGE, PATH_HISTORY_PAGE, historyEffectiveNodeRoute, historyNodeRoute, historyPathHistoryRoute } from '@stateflow/http-contract';
import type { ContractApp } from '../contract-app.js';
import { pathHistory } from '../history/path-history.js';
import { cliCommand, ownerFlags, readStatePath, scopeRoot, streamKind } from '../history/read-paths.js';
import { nodeShape, shapeSelector } from '../history/node-shape.js';
import { nodePage, resolvePointer } from '../history/state-node.js';
import type { NodeDecoration } from '../history/state-node.js';
import { revisionAsOf, seqOfRevision } from '../history/stream-position.js';
import { selectedLayers, stateAtRev, visibleHead } from '../history/stream-reads.js';
import type { ShapeSelector, Store, StreamHead } from '@stateflow/store';
import type { ServerContext } from '../server-context.js';
import { streamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';
import { requestBudget } from '../work-budget.js';

/** Register the tree levels and the path history on `app`. */
export function registerHistoryTreeRoutes(app: ContractApp, context: ServerContext): void {
  const { store } = context;
  app.route({
    ...historyNodeRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, pointer = '', offset = 0, limit = NODE_PAGE.default } = request.query;
      const head = await visibleHead(store, streamVisibility(context, request), stream);
      const rev = request.query.rev ?? (request.query.seq === undefined ? head.rev : await revisionAsOf(store, head, request.query.seq));
      const shape = shapeSelector(request.query.shape);
      const state = await stateAtRev(store, head, rev, shape);
      const change = await changeAt(store, head, rev, shape);
      const root = scopeRoot(stream);
      const decoration: NodeDecoration = { change, path: (steps) => (root === null ? null : readStatePath(root, rev, steps)) };
      const page = nodePage(state, pointer, { offset, limit }, decoration);
      const { steps } = resolvePointer(state, pointer);
      // The transition of the origin revision may have been pruned with the ones before it.
      const seq = rev === 0 || rev <= head.origin ? null : await seqOfRevision(store, head, rev);
      const at = { stream, streamKind: streamKind(stream), rev, seq, head: head.rev, headSeq: head.seq, origin: head.origin };
      const shown = await nodeShape(store, head, rev, shape);
      return { ...at, path: decoration.path(steps), cli: cliCommand(stream, rev, steps), ...page, ...(shown === undefined ? {} : { shape: shown }) };
    },
  });

  app.route({
    ...historyEffectiveNodeRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { pointer = '', offset = 0, limit = NODE_PAGE.default } = request.query;
      const layers = await selectedLayers(streamVisibility(context, request), request.query);
      const seq = request.query.seq ?? store.lastSeq();
      const streams = layers.map((l) => l.stream);
      const states = await store.statesAt(streams, seq);
      const scoped = layers.map((l) => ({ scope: l.scope, state: states[l.stream] ?? {} }));
      const state = overlay(...scoped.map((l) => l.state));
      const before = seq >= 1 ? await store.effectiveAt(streams, seq - 1) : undefined;
      const decoration: NodeDecoration = {
        change: before === undefined ? null : { before },
        path: (steps) => readStatePath('effective', seq, steps),
        layers: scoped,
      };
      const page = nodePage(state, pointer, { offset, limit }, decoration);
      const path = decoration.path(resolvePointer(state, pointer).steps);
      const cli = path === null ? null : `stateflow ${ownerFlags(request.query)} read '${path}'`;
      return { seq, lastSeq: store.lastSeq(), streams, path, cli, ...page };
    },
  });

  app.route({
    ...historyPathHistoryRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { stream, pointer = '', after = 0, limit = PATH_HISTORY_PAGE.default, scan = PATH_HISTORY_PAGE.scan } = request.query;
      const head = await visibleHead(store, streamVisibility(context, request), stream);
      const { steps } = resolvePointer(await stateAtRev(store, head, request.query.at ?? head.rev), pointer);
      return pathHistory(store, head, pointer, steps, { after, limit, scan }, requestBudget(context, request));
    },
  });
}

/**
 * What revision `rev` changed, for the tree's marks: stored, its net patch and the state before;
 * in a shape, the state before in that shape (compared value by value: the stored patch is in
 * the version it was written in). `null` at the origin and, in a shape, just above it (the
 * origin reads stored only).
 */
async function changeAt(store: Store, head: StreamHead, rev: number, shape: ShapeSelector): Promise<NodeDecoration['change']> {
  if (rev < 1 || rev - 1 < head.origin) return null;
  if (shape === 'stored') return { patch: await store.patchAt(head.stream, rev), before: await stateAtRev(store, head, rev - 1) };
  return rev - 1 === 0 || rev - 1 > head.origin ? { before: await stateAtRev(store, head, rev - 1, shape) } : null;
}
