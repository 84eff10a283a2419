/**
 * Session routes (seeds/ladr-stateful-sessions.txt "A session is created via the platform API",
 * "A session has a lifecycle"; server README "Endpoints"): create, list, get, close, pause, resume,
 * and the time-travel slate read.
 */
import { StateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { isLocalLadder, pausableModel, sessionSlateStream } from '@stateflow/slates';
import type { ExecutionState, SessionRecord } from '@stateflow/slates';
import type { FastifyInstance } from 'fastify';
import { chatCompletion, requireModel } from '../chat-completion.js';
import { recordedInput } from '../conversation.js';
import { initialSlateState, projectMetatags, projectSlates, runLadderCall } from '../ladder-runtime.js';
import { createSessionBodySchema, ladderParamsSchema, sessionParamsSchema, slatesQuerySchema } from '../schemas.js';
import type { ServerContext } from '../server-context.js';
import { assertSessionOfLadder, ownedSession, ownedSlates, servedLadder } from './ladder-target.js';
import type { LadderParams, SessionParams } from './ladder-target.js';
import { USER_ROUTE } from '../access-gate.js';

/** A session as the API shows it: the record (without the owner) plus its slate revision. */
export type SessionView = Omit<SessionRecord, 'owner'> & { rev: number };

/** Register the session routes on `app`. */
export function registerSessionRoutes(app: FastifyInstance, context: ServerContext): void {
  const view = async (record: SessionRecord): Promise<SessionView> => {
    const { owner: _owner, ...rest } = record;
    const head = await context.store.head(sessionSlateStream(record.ladder, record.id));
    return { ...rest, rev: head.rev };
  };

  app.post<{ Params: LadderParams; Body: { name?: string } | undefined }>(
    '/v1/:author/:ladder/sessions',
    { config: USER_ROUTE, schema: { params: ladderParamsSchema, body: createSessionBodySchema } },
    async (request) => {
      const entry = servedLadder(context, request.params);
      if (isLocalLadder(entry.id)) {
        throw new StateflowError(
          'INPUT_INVALID',
          `${entry.id} is a local ladder: local ladders have no sessions; call chat/completions without X-Session-Id and its slates persist in the local store`,
          { field: 'ladder' },
        );
      }
      const record = await context.sessions.create({
        ladder: entry.id,
        owner: request.user,
        name: request.body?.name ?? '',
        initialSlate: initialSlateState(entry, context.sessions.now()),
      });
      return { id: record.id, ladder: record.ladder, createdAt: record.createdAt };
    },
  );

  app.get<{ Params: LadderParams }>('/v1/:author/:ladder/sessions', { config: USER_ROUTE, schema: { params: ladderParamsSchema } }, async (request) => {
    const entry = servedLadder(context, request.params);
    const records = await context.sessions.list(request.user, entry.id);
    return { object: 'list', data: await Promise.all(records.map(view)) };
  });

  app.get<{ Params: SessionParams }>('/v1/:author/:ladder/sessions/:id', { config: USER_ROUTE, schema: { params: sessionParamsSchema } }, async (request) => {
    const { record } = await ownedSession(context, request.user, request.params);
    return view(record);
  });

  const lifecycle = (verb: 'close' | 'pause', change: (id: string, user: string) => Promise<SessionRecord>) =>
    app.post<{ Params: SessionParams }>(
      `/v1/:author/:ladder/sessions/:id/${verb}`,
      { config: USER_ROUTE, schema: { params: sessionParamsSchema } },
      async (request) => {
        const { entry } = await ownedSession(context, request.user, request.params);
        return view(assertSessionOfLadder(await change(request.params.id, request.user), entry.id));
      },
    );
  lifecycle('close', (id, user) => context.sessions.close(id, user));
  lifecycle('pause', (id, user) => context.sessions.pause(id, user));

  // Resume; a call paused by an earlier process is run again from its recorded execution state
  // (recorded model outputs replayed, the rest asked of the model) and its completion returned.
  app.post<{ Params: SessionParams }>('/v1/:author/:ladder/sessions/:id/resume', { config: USER_ROUTE, schema: { params: sessionParamsSchema } }, async (request) => {
    const { entry, record } = await ownedSession(context, request.user, request.params);
    const execution = record.execution as ExecutionState | undefined;
    if (execution !== undefined) requireModel(context, entry.id, String(execution.call.model ?? ''));
    const resumed = await context.sessions.resume(record.id, request.user, async (current, state, control) => {
      const modelName = String(state.call.model ?? '');
      const model = pausableModel(requireModel(context, entry.id, modelName), control, state.call, state.calls);
      const result = await runLadderCall({ store: context.store, entry, session: current.id, input: recordedInput(state.call), model, clock: context.clock });
      return chatCompletion(result, { model: modelName, session: current.id, ladder: entry.id, now: context.clock() });
    });
    const shown = await view(resumed.record);
    return resumed.continued === undefined ? shown : { ...shown, completion: resumed.continued };
  });

  app.get<{ Params: SessionParams; Querystring: { at?: number } }>(
    '/v1/:author/:ladder/sessions/:id/slates',
    { config: USER_ROUTE, schema: { params: sessionParamsSchema, querystring: slatesQuerySchema } },
    async (request) => {
      const { entry, record, stream, head } = await ownedSlates(context, request.user, request.params);
      const at = request.query.at ?? head.rev;
      // Query strings are coerced: "1e400" arrives as Infinity, "9007199254740993" rounded.
      if (!Number.isSafeInteger(at)) {
        throw new StateflowError('INPUT_INVALID', `querystring.at must be <= ${Number.MAX_SAFE_INTEGER}.`, { field: 'querystring.at', reason: 'maximum' });
      }
      if (at > head.rev) {
        throw new StateflowError('REVISION_NOT_FOUND', `Slate revision ${at} does not exist; the session's slates are at revision ${head.rev}`, {
          stream,
          rev: at,
          head: head.rev,
        });
      }
      const state: JsonObject = at === head.rev ? await context.store.state(stream) : await context.store.stateAt(stream, at);
      return { session: record.id, ladder: entry.id, rev: at, head: head.rev, slates: projectSlates(state), metatags: await projectMetatags(state) };
    },
  );
}
