/**
 * The history endpoints behind the history page (`/ui/`): read-only views of the log shaped for
 * a browser — the streams rail, the time histogram, one level of a state tree (of a stream, or
 * of the effective overlay) at a revision or seq, a stream's revisions, a path's history, a
 * structural diff, one transition with its hash link — and the two guarded actions, revert and
 * fork, which publish with the `expected` revision the page showed so a stale page gets
 * `409 CONFLICT` instead of overwriting newer work. Every response is bounded (pages, bucket
 * counts, scan limits); none returns the whole log.
 *
 * With API keys a caller sees only its own ladder sessions' streams (`history/visibility.ts`).
 */
import { StateflowError, diff, overlay } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { SESSION_ID_PATTERN, isEnded } from '@stateflow/slates';
import type { ExpectedRevision, PublishResult, Store, StreamHead, StreamId } from '@stateflow/store';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context.js';
import { histogram } from '../history/histogram.js';
import {
  diffQuerySchema,
  effectiveNodeQuerySchema,
  forkBodySchema,
  histogramQuerySchema,
  nodeQuerySchema,
  pathHistoryQuerySchema,
  revertBodySchema,
  revisionsQuerySchema,
  slatesAtQuerySchema,
  streamsQuerySchema,
  transitionParamsSchema,
} from '../history/history-schemas.js';
import { pathHistory } from '../history/path-history.js';
import { cliCommand, readStatePath, scopeRoot, streamKind } from '../history/read-paths.js';
import type { NodeStep, StreamKind } from '../history/read-paths.js';
import { nodePage, resolvePointer } from '../history/state-node.js';
import type { NodeDecoration, Scope } from '../history/state-node.js';
import { slatesView } from '../history/slates-at-call.js';
import { streamPage } from '../history/stream-list.js';
import { structuralDiff } from '../history/structural-diff.js';
import { revisionAsOf, revisionIn, seqOfRevision } from '../history/stream-position.js';
import { assertVisible, canSee, visibilityOf } from '../history/visibility.js';

interface Owners {
  global?: boolean;
  cwd?: string;
  session?: string;
}

/** Register the `/v1/history/…` routes on `app`. */
export function registerHistoryRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;
  const visibleHead = async (user: string, stream: StreamId): Promise<StreamHead> => {
    assertVisible(await visibilityOf(context, user), stream);
    return store.head(stream);
  };

  app.get<{ Querystring: { filter?: string; kind?: StreamKind; after?: string; limit: number } }>(
    '/v1/history/streams',
    { schema: { querystring: streamsQuerySchema } },
    async (request) => ({ lastSeq: store.lastSeq(), ...(await streamPage(store, await visibilityOf(context, request.user), request.query)) }),
  );

  app.get<{ Querystring: { buckets: number; stream?: string } }>(
    '/v1/history/histogram',
    { schema: { querystring: histogramQuerySchema } },
    async (request) => {
      const { stream, buckets } = request.query;
      if (stream === undefined && context.keys !== null) {
        throw new StateflowError('INPUT_INVALID', 'With API keys the histogram counts one of your streams: pass ?stream=<stream id>', { field: 'stream' });
      }
      if (stream !== undefined) await visibleHead(request.user, stream);
      return histogram(store, { buckets, ...(stream === undefined ? {} : { stream }) });
    },
  );

  app.get<{ Querystring: { stream: string; rev?: number; seq?: number; pointer: string; offset: number; limit: number } }>(
    '/v1/history/node',
    { schema: { querystring: nodeQuerySchema } },
    async (request) => {
      const { stream, pointer, offset, limit } = request.query;
      const head = await visibleHead(request.user, stream);
      const rev = request.query.rev ?? (request.query.seq === undefined ? head.rev : await revisionAsOf(store, head, request.query.seq));
      const state = await stateAtRev(store, head, rev);
      const change = rev >= 1 && rev - 1 >= head.origin ? { patch: await store.patchAt(stream, rev), before: await stateAtRev(store, head, rev - 1) } : null;
      const root = scopeRoot(stream);
      const decoration: NodeDecoration = { change, path: (steps) => (root === null ? null : readStatePath(root, rev, steps)) };
      const page = nodePage(state, pointer, { offset, limit }, decoration);
      const { steps } = resolvePointer(state, pointer);
      const seq = rev === 0 ? 0 : await seqOfRevision(store, head, rev);
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
    { schema: { querystring: effectiveNodeQuerySchema } },
    async (request) => {
      const layers = await selectedLayers(context, request.user, request.query);
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
    { schema: { querystring: revisionsQuerySchema } },
    async (request) => {
      const { stream, limit } = request.query;
      const head = await visibleHead(request.user, stream);
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
    { schema: { querystring: pathHistoryQuerySchema } },
    async (request) => {
      const { stream, pointer, after, limit, scan } = request.query;
      const head = await visibleHead(request.user, stream);
      const { steps } = resolvePointer(await stateAtRev(store, head, request.query.at ?? head.rev), pointer);
      return pathHistory(store, head, pointer, steps, { after, limit, scan });
    },
  );

  app.get<{ Querystring: Owners & { stream?: string; streamB?: string; a: number; b: number; limit: number } }>(
    '/v1/history/diff',
    { schema: { querystring: diffQuerySchema } },
    async (request) => {
      const { stream, a, b, limit } = request.query;
      let before: JsonObject;
      let after: JsonObject;
      let storedPatch: JsonObject | null = null;
      let cli: string;
      if (stream !== undefined) {
        const streamB = request.query.streamB ?? stream;
        const headA = await visibleHead(request.user, stream);
        const headB = streamB === stream ? headA : await visibleHead(request.user, streamB);
        before = await stateAtRev(store, headA, a);
        after = await stateAtRev(store, headB, b);
        if (streamB === stream && b === a + 1) storedPatch = await store.patchAt(stream, b);
        cli = streamB === stream ? `stateflow diff ${shellQuote(stream)} ${a} ${b}` : `stateflow fork ${shellQuote(stream)} <new> --at ${a}  # the fork's source; compare with: stateflow diff ${shellQuote(streamB)} 0 ${b}`;
      } else {
        const layers = await selectedLayers(context, request.user, request.query);
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
    { schema: { querystring: slatesAtQuerySchema } },
    async (request) => {
      const { stream } = request.query;
      const head = await visibleHead(request.user, stream);
      const rev = request.query.rev ?? (request.query.seq === undefined ? head.rev : await revisionAsOf(store, head, request.query.seq));
      const state = await stateAtRev(store, head, rev);
      const seq = rev === 0 ? 0 : await seqOfRevision(store, head, rev);
      const call = rev >= 1 && rev - 1 >= head.origin ? structuralDiff(await stateAtRev(store, head, rev - 1), state, 2000) : null;
      return { stream, rev, seq, head: head.rev, origin: head.origin, time: seq === 0 ? null : (await store.transition(seq)).time, slates: await slatesView(state), call };
    },
  );

  app.get<{ Params: { seq: number } }>('/v1/history/transitions/:seq', { schema: { params: transitionParamsSchema } }, async (request) => {
    const visibility = await visibilityOf(context, request.user);
    const transition = await store.transition(request.params.seq);
    const changes = transition.changes.filter((c) => canSee(visibility, c.stream));
    if (changes.length === 0) throw new StateflowError('TRANSITION_NOT_FOUND', `Transition ${transition.seq} changed none of your streams`, { seq: transition.seq, lastSeq: store.lastSeq() });
    const previous = await previousHash(store, transition.seq);
    return {
      ...transition,
      changes,
      hidden: transition.changes.length - changes.length,
      link: { prevHash: transition.prevHash, hash: transition.hash, previous, verified: previous === null ? null : previous === transition.prevHash },
      cli: `stateflow show ${transition.seq}`,
    };
  });

  app.post<{ Body: { stream: string; rev: number; expected: ExpectedRevision } }>(
    '/v1/history/revert',
    { schema: { body: revertBodySchema } },
    async (request) => {
      const { stream, rev, expected } = request.body;
      await assertWritable(context, request.user, stream);
      const head = await store.head(stream);
      const target = await stateAtRev(store, head, rev);
      const patch = diff(await store.state(stream), target);
      if (Object.keys(patch).length === 0) return receipt({ status: 'noop', transition: null });
      // The store's own revert has no expected revision; this is the same transition guarded by it.
      return receipt(await store.publish({ changes: { [stream]: patch }, expected: { [stream]: expected }, meta: { revert: { stream, rev } } }));
    },
  );

  app.post<{ Body: { from: string; to: string; at: number; expected: ExpectedRevision } }>(
    '/v1/history/fork',
    { schema: { body: forkBodySchema } },
    async (request) => {
      const { from, to, at, expected } = request.body;
      assertVisible(await visibilityOf(context, request.user), from);
      await assertWritable(context, request.user, to);
      return receipt(await store.fork(from, to, { at, expected }));
    },
  );
}

/** State at `rev` (0 is the empty state; the head is read from memory). */
async function stateAtRev(store: Store, head: StreamHead, rev: number): Promise<JsonObject> {
  if (rev === 0) return {};
  return rev === head.rev ? store.state(head.stream) : store.stateAt(head.stream, rev);
}

/** The hash of transition `seq − 1` (64 zeros before seq 1), or `null` when compaction pruned it. */
async function previousHash(store: Store, seq: number): Promise<string | null> {
  if (seq === 1) return '0'.repeat(64);
  try {
    return (await store.transition(seq - 1)).hash;
  } catch (err) {
    if (err instanceof StateflowError && err.code === 'HISTORY_NOT_RETAINED') return null;
    throw err;
  }
}

/** The scope streams of an effective view, low → high priority, each checked visible. */
async function selectedLayers(context: ServerContext, user: string, owners: Owners): Promise<Array<{ scope: Scope; stream: StreamId }>> {
  const layers: Array<{ scope: Scope; stream: StreamId }> = [];
  if (owners.global === true) layers.push({ scope: 'global', stream: 'global' });
  if (owners.cwd !== undefined) layers.push({ scope: 'cwd', stream: `cwd:${owners.cwd}` });
  if (owners.session !== undefined) layers.push({ scope: 'session', stream: `session:${owners.session}` });
  if (layers.length === 0) {
    throw new StateflowError('INPUT_INVALID', 'Select at least one owner of the effective view: global=true, cwd=/abs/dir or session=<id>', { field: 'selection' });
  }
  const visibility = await visibilityOf(context, user);
  for (const layer of layers) assertVisible(visibility, layer.stream);
  return layers;
}

function ownerFlags(owners: Owners): string {
  return [owners.global === true ? '--global' : '', owners.cwd === undefined ? '' : `--cwd ${shellQuote(owners.cwd)}`, owners.session === undefined ? '' : `--session ${shellQuote(owners.session)}`]
    .filter((f) => f !== '')
    .join(' ');
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@=-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Check that the page may publish to `stream`: visible, not a session record (those change only
 * through the sessions API), and not a stream of a closed or expired ladder session.
 * @throws NOT_FOUND, INPUT_INVALID, SESSION_CLOSED
 */
async function assertWritable(context: ServerContext, user: string, stream: StreamId): Promise<void> {
  assertVisible(await visibilityOf(context, user), stream);
  const kind = streamKind(stream);
  if (kind === 'ladder-session') {
    throw new StateflowError('INPUT_INVALID', `${stream} is a session record: it changes only through the sessions API (close, pause, resume)`, { field: 'stream' });
  }
  const id = kind === 'session' ? stream.slice('session:'.length) : kind === 'slate' ? stream.slice(stream.lastIndexOf(':') + 1) : null;
  if (id === null || !SESSION_ID_PATTERN.test(id)) return;
  const record = await context.sessions.get(id, user).catch(() => null);
  if (record !== null && isEnded(record.status)) {
    throw new StateflowError('SESSION_CLOSED', `Session "${id}" is ${record.status}: its streams can be read during retention but not changed`, { session: id, status: record.status });
  }
}

/** The answer of an action: the publication's status and the transition's seq and changes. */
function receipt(result: PublishResult): { status: PublishResult['status']; seq: number | null; transition: PublishResult['transition'] } {
  return { status: result.status, seq: result.transition?.seq ?? null, transition: result.transition };
}
