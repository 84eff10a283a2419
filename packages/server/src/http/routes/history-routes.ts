/**
 * The history endpoints behind the history page (`/ui/`): read-only views of the log shaped for
 * a browser, beside the store API (`/v1/store/…`) that the page uses for single transitions and
 * for its guarded actions — the streams rail, the time histogram, one level of a state tree (of
 * a stream, or of the effective overlay) at a revision or seq, a stream's revisions by revision
 * number, a path's history, a structural diff, the slates of a ladder session at a call. Every
 * response is bounded (pages, bucket counts, scan limits); none returns the whole log.
 *
 * With API keys a caller sees only its own ladder sessions' streams (`stream-visibility.ts`);
 * another stream is reported as not found.
 */
import { StateflowError, diff, overlay } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Store, StreamHead, StreamId } from '@stateflow/store';
import type { Scope, StreamKind } from '@stateflow/ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../server-context.js';
import { histogram } from '../history/histogram.js';
import {
  diffQuerySchema,
  effectiveNodeQuerySchema,
  histogramQuerySchema,
  nodeQuerySchema,
  pathHistoryQuerySchema,
  revisionsQuerySchema,
  slatesAtQuerySchema,
  streamsQuerySchema,
} from '../history/history-schemas.js';
import { pathHistory } from '../history/path-history.js';
import { cliCommand, readStatePath, scopeRoot, streamKind } from '../history/read-paths.js';
import type { NodeStep } from '../history/read-paths.js';
import { nodePage, resolvePointer } from '../history/state-node.js';
import type { NodeDecoration } from '../history/state-node.js';
import { slatesView } from '../history/slates-at-call.js';
import { streamPage } from '../history/stream-list.js';
import { structuralDiff } from '../history/structural-diff.js';
import { revisionAsOf, revisionIn, seqOfRevision } from '../history/stream-position.js';
import { streamVisibility } from '../stream-visibility.js';
import type { StreamVisibility } from '../stream-visibility.js';
import { USER_ROUTE } from '../access-gate.js';

interface Owners {
  /** `1` or `true` (the query's text; the schema admits nothing else). */
  global?: '1' | 'true';
  cwd?: string;
  session?: string;
}

/** Register the `/v1/history/…` routes on `app`. */
export function registerHistoryRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;
  const access = (request: FastifyRequest): StreamVisibility => streamVisibility(context, request);
  const visibleHead = async (request: FastifyRequest, stream: StreamId): Promise<StreamHead> => {
    await assertVisible(access(request), stream);
    return store.head(stream);
  };

  app.get<{ Querystring: { filter?: string; kind?: StreamKind; after?: string; limit: number } }>(
    '/v1/history/streams',
    { config: USER_ROUTE, schema: { querystring: streamsQuerySchema } },
    async (request) => streamPage(store, access(request), request.query),
  );

  app.get<{ Querystring: { buckets: number; stream?: string; axis: 'time' | 'seq' } }>(
    '/v1/history/histogram',
    { config: USER_ROUTE, schema: { querystring: histogramQuerySchema } },
    async (request) => {
      const { stream, buckets, axis } = request.query;
      if (stream === undefined && !request.admin) {
        throw new StateflowError('INPUT_INVALID', 'With API keys the histogram counts one of your streams: pass ?stream=<stream id>', { field: 'stream' });
      }
      if (stream !== undefined) await visibleHead(request, stream);
      return histogram(store, { buckets, axis, ...(stream === undefined ? {} : { stream }) });
    },
  );

  app.get<{ Querystring: { stream: string; rev?: number; seq?: number; pointer: string; offset: number; limit: number } }>(
    '/v1/history/node',
    { config: USER_ROUTE, schema: { querystring: nodeQuerySchema } },
    async (request) => {
      const { stream, pointer, offset, limit } = request.query;
      const head = await visibleHead(request, stream);
      const rev = request.query.rev ?? (request.query.seq === undefined ? head.rev : await revisionAsOf(store, head, request.query.seq));
      const state = await stateAtRev(store, head, rev);
      const change = rev >= 1 && rev - 1 >= head.origin ? { patch: await store.patchAt(stream, rev), before: await stateAtRev(store, head, rev - 1) } : null;
      const root = scopeRoot(stream);
      const decoration: NodeDecoration = { change, path: (steps) => (root === null ? null : readStatePath(root, rev, steps)) };
      const page = nodePage(state, pointer, { offset, limit }, decoration);
      const { steps } = resolvePointer(state, pointer);
      // The transition of the origin revision may have been pruned with the ones before it.
      const seq = rev === 0 || rev <= head.origin ? null : await seqOfRevision(store, head, rev);
      return {
        stream,
        streamKind: streamKind(stream),
        rev,
        seq,
        head: head.rev,
        headSeq: head.seq,
        origin: head.origin,
        path: decoration.path(steps),
        cli: cliCommand(stream, rev, steps),
        ...page,
      };
    },
  );

  app.get<{ Querystring: Owners & { seq?: number; pointer: string; offset: number; limit: number } }>(
    '/v1/history/effective-node',
    { config: USER_ROUTE, schema: { querystring: effectiveNodeQuerySchema } },
    async (request) => {
      const layers = await selectedLayers(access(request), request.query);
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
      const page = nodePage(state, request.query.pointer, { offset: request.query.offset, limit: request.query.limit }, decoration);
      const { steps } = resolvePointer(state, request.query.pointer);
      const path = decoration.path(steps);
      return {
        seq,
        lastSeq: store.lastSeq(),
        streams,
        path,
        cli: path === null ? null : `stateflow ${ownerFlags(request.query)} read '${path}'`,
        ...page,
      };
    },
  );

  app.get<{ Querystring: { stream: string; from: number; limit: number } }>(
    '/v1/history/revisions',
    { config: USER_ROUTE, schema: { querystring: revisionsQuerySchema } },
    async (request) => {
      const { stream, limit } = request.query;
      const head = await visibleHead(request, stream);
      const from = Math.max(request.query.from, head.origin + 1, 1);
      const revisions = [];
      if (from <= head.rev) {
        for await (const t of store.transitions({ stream, from: await seqOfRevision(store, head, from), to: head.seq })) {
          revisions.push({ rev: revisionIn(t, stream), seq: t.seq, time: t.time, ...(t.id === undefined ? {} : { id: t.id }), ...(t.meta === undefined ? {} : { meta: t.meta }), streams: t.changes.length });
          if (revisions.length >= limit) break;
        }
      }
      const last = revisions[revisions.length - 1]?.rev ?? head.rev;
      return { stream, head: head.rev, origin: head.origin, revisions, next: last < head.rev ? last + 1 : null };
    },
  );

  app.get<{ Querystring: { stream: string; pointer: string; at?: number; after: number; limit: number; scan: number } }>(
    '/v1/history/path-history',
    { config: USER_ROUTE, schema: { querystring: pathHistoryQuerySchema } },
    async (request) => {
      const { stream, pointer, after, limit, scan } = request.query;
      const head = await visibleHead(request, stream);
      const { steps } = resolvePointer(await stateAtRev(store, head, request.query.at ?? head.rev), pointer);
      return pathHistory(store, head, pointer, steps, { after, limit, scan });
    },
  );

  app.get<{ Querystring: Owners & { stream?: string; streamB?: string; a: number; b: number; limit: number } }>(
    '/v1/history/diff',
    { config: USER_ROUTE, schema: { querystring: diffQuerySchema } },
    async (request) => {
      const { stream, a, b, limit } = request.query;
      let before: JsonObject;
      let after: JsonObject;
      let storedPatch: JsonObject | null = null;
      let cli: string;
      if (stream !== undefined) {
        const streamB = request.query.streamB ?? stream;
        const headA = await visibleHead(request, stream);
        const headB = streamB === stream ? headA : await visibleHead(request, streamB);
        before = await stateAtRev(store, headA, a);
        after = await stateAtRev(store, headB, b);
        if (streamB === stream && b === a + 1) storedPatch = await store.patchAt(stream, b);
        cli = streamB === stream ? `stateflow diff ${shellQuote(stream)} ${a} ${b}` : `stateflow fork ${shellQuote(stream)} <new> --at ${a}  # the fork's source; compare with: stateflow diff ${shellQuote(streamB)} 0 ${b}`;
      } else {
        const layers = await selectedLayers(access(request), request.query);
        const streams = layers.map((l) => l.stream);
        before = await store.effectiveAt(streams, a);
        after = await store.effectiveAt(streams, b);
        if (b === a + 1) storedPatch = diff(before, after);
        cli = `stateflow ${ownerFlags(request.query)} read 'effective[${a}]' 'effective[${b}]'`;
      }
      return { ...structuralDiff(before, after, limit), patch: diff(before, after), storedPatch, cli };
    },
  );

  app.get<{ Querystring: { stream: string; rev?: number; seq?: number } }>(
    '/v1/history/slates',
    { config: USER_ROUTE, schema: { querystring: slatesAtQuerySchema } },
    async (request) => {
      const { stream } = request.query;
      const head = await visibleHead(request, stream);
      const rev = request.query.rev ?? (request.query.seq === undefined ? head.rev : await revisionAsOf(store, head, request.query.seq));
      const state = await stateAtRev(store, head, rev);
      const seq = rev === 0 || rev <= head.origin ? null : await seqOfRevision(store, head, rev);
      const call = rev >= 1 && rev - 1 >= head.origin ? structuralDiff(await stateAtRev(store, head, rev - 1), state, 2000) : null;
      return { stream, rev, seq, head: head.rev, origin: head.origin, time: seq === null ? null : (await store.transition(seq)).time, slates: await slatesView(state), call };
    },
  );
}

/**
 * Check that `stream` is visible; an invisible stream is reported like one that does not exist,
 * so a caller cannot probe other users' stream ids.
 * @throws NOT_FOUND
 */
async function assertVisible(visibility: StreamVisibility, stream: StreamId): Promise<void> {
  if (!(await visibility.canSee(stream))) throw new StateflowError('NOT_FOUND', `No stream ${JSON.stringify(stream)} is visible to you`, { stream });
}

/** State at `rev` (0 is the empty state; the head is read from memory). */
async function stateAtRev(store: Store, head: StreamHead, rev: number): Promise<JsonObject> {
  if (rev === 0) return {};
  return rev === head.rev ? store.state(head.stream) : store.stateAt(head.stream, rev);
}

/** The scope streams of an effective view, low → high priority, each checked visible. */
async function selectedLayers(visibility: StreamVisibility, owners: Owners): Promise<Array<{ scope: Scope; stream: StreamId }>> {
  const layers: Array<{ scope: Scope; stream: StreamId }> = [];
  if (owners.global !== undefined) layers.push({ scope: 'global', stream: 'global' });
  if (owners.cwd !== undefined) layers.push({ scope: 'cwd', stream: `cwd:${owners.cwd}` });
  if (owners.session !== undefined) layers.push({ scope: 'session', stream: `session:${owners.session}` });
  if (layers.length === 0) {
    throw new StateflowError('INPUT_INVALID', 'Select at least one owner of the effective view: global=true, cwd=/abs/dir or session=<id>', { field: 'selection' });
  }
  for (const layer of layers) await assertVisible(visibility, layer.stream);
  return layers;
}

function ownerFlags(owners: Owners): string {
  return [owners.global !== undefined ? '--global' : '', owners.cwd === undefined ? '' : `--cwd ${shellQuote(owners.cwd)}`, owners.session === undefined ? '' : `--session ${shellQuote(owners.session)}`]
    .filter((f) => f !== '')
    .join(' ');
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@=-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
