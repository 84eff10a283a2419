/**
 * Session routes (seeds/ladr-stateful-sessions.txt "A session is created via the platform API",
 * "A session has a lifecycle"; server README "Endpoints"): create, list, get, close, pause and
 * resume. The slates' reads are `slate-routes.ts`.
 */
import { StateflowError } from '@stateflow/core';
import { isLocalLadder, pausableModel, sessionSlateStream } from '@stateflow/slates';
import type { SessionRecord } from '@stateflow/slates';
import {
  closeSessionRoute,
  createSessionRoute,
  getSessionRoute,
  listSessionsRoute,
  pauseSessionRoute,
  resumeSessionRoute,
} from '@stateflow/http-contract';
import { chatCompletion, requireModel } from '../chat-completion.js';
import type { ContractApp } from '../contract-app.js';
import { recordedInput } from '../conversation.js';
import { initialSlateState, runLadderCall } from '../ladder-runtime.js';
import type { ServerContext } from '../server-context.js';
import { assertSessionOfLadder, ownedSession, servedLadder } from './ladder-target.js';
import type { SessionParams } from './ladder-target.js';
import { USER_ROUTE } from '../access-gate.js';
import { setWriterSurface } from '../observability/writer-scope.js';

/** A session as the API shows it: the record (without the owner) plus its slate revision. */
export type SessionView = Omit<SessionRecord, 'owner'> & { rev: number };

/** Register the session routes on `app`. */
export function registerSessionRoutes(app: ContractApp, context: ServerContext): void {
  const view = async (record: SessionRecord): Promise<SessionView> => {
    const { owner: _owner, ...rest } = record;
    const head = await context.store.head(sessionSlateStream(record.ladder, record.id));
    return { ...rest, rev: head.rev };
  };

  app.route({
    ...createSessionRoute,
    config: USER_ROUTE,
    handler: async (request) => {
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
        // The body may be left out: a session with no name.
        name: request.body?.name ?? '',
        initialSlate: initialSlateState(entry, context.sessions.now()),
      });
      return { id: record.id, ladder: record.ladder, createdAt: record.createdAt };
    },
  });

  app.route({
    ...listSessionsRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const entry = servedLadder(context, request.params);
      const records = await context.sessions.list(request.user, entry.id);
      return { object: 'list' as const, data: await Promise.all(records.map(view)) };
    },
  });

  app.route({
    ...getSessionRoute,
    config: USER_ROUTE,
    handler: async (request) => view((await ownedSession(context, request.user, request.params)).record),
  });

  /** The handler of a lifecycle change of the caller's session (close, pause). */
  const lifecycle =
    (change: (id: string, user: string) => Promise<SessionRecord>) =>
    async (request: { user: string; params: SessionParams }): Promise<SessionView> => {
      const { entry } = await ownedSession(context, request.user, request.params);
      return view(assertSessionOfLadder(await change(request.params.id, request.user), entry.id));
    };
  app.route({ ...closeSessionRoute, config: USER_ROUTE, handler: lifecycle((id, user) => context.sessions.close(id, user)) });
  app.route({ ...pauseSessionRoute, config: USER_ROUTE, handler: lifecycle((id, user) => context.sessions.pause(id, user)) });

  // Resume; a call paused by an earlier process is run again from its recorded execution state
  // (recorded model outputs replayed, the rest asked of the model) and its completion returned.
  app.route({
    ...resumeSessionRoute,
    config: USER_ROUTE,
    handler: async (request) => {
      const { entry, record } = await ownedSession(context, request.user, request.params);
      const { execution } = record;
      if (execution !== undefined) requireModel(context, entry.id, String(execution.call.model ?? ''));
      const resumed = await context.sessions.resume(record.id, request.user, async (current, state, control) => {
        setWriterSurface('ladder', entry.id);
        const modelName = String(state.call.model ?? '');
        const model = pausableModel(requireModel(context, entry.id, modelName), control, state.call, state.calls);
        const result = await runLadderCall({ store: context.store, entry, session: current.id, input: recordedInput(state.call), model, clock: context.clock, observer: context.metrics.ladderObserver(entry.id) });
        return chatCompletion(result, { model: modelName, session: current.id, ladder: entry.id, now: context.clock() });
      });
      const shown = await view(resumed.record);
      return resumed.continued === undefined ? shown : { ...shown, completion: resumed.continued };
    },
  });
}
