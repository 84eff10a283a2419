export {};
// --- sessions (session lifecycle; seeds/ladr-stateful-sessions.txt) ---
export { SessionManager, DAY_MS } from './sessions/session-manager.js';
export type { SessionManagerOptions, CreateSessionInput, SweepReport, ResumeResult } from './sessions/session-manager.js';
export { SerialQueue } from './sessions/session-queue.js';
export {
  SESSION_STATUSES,
  SESSION_META_PREFIX,
  SESSION_ID_PATTERN,
  LOCAL_NAMESPACE,
  LOCAL_SESSION,
  sessionMetaStream,
  sessionSlateStream,
  agentSessionStream,
  isEnded,
  isLocalLadder,
} from './sessions/session-record.js';
export type { SessionRecord, SessionStatus } from './sessions/session-record.js';
