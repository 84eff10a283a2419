// --- ladders and slates (seeds/ladr-reads-and-writes.txt, ladr-persistent-memory-with-slates.txt) ---
export { loadLadder, loadLadderFile, validateLadder, validateLadderFile } from './load-ladder.js';
export type { Ladder } from './load-ladder.js';
export { ladderConfigSchema } from './config-schema.js';
export type {
  LadderConfig,
  SlateDecl,
  FolderDecl,
  FileDecl,
  MetatagDecl,
  MetatagType,
  EvictionPolicy,
  FolderAccess,
  StepDecl,
  FieldDecl,
  TextField,
  SlateReadField,
  SlateRef,
  SourceSpec,
  StepSource,
  NodeRef,
  GateDecl,
  GateAction,
  GateWrite,
  SlateWriteDecl,
  WritePolicy,
  WriteTarget,
  RetrieveDecl,
} from './config-types.js';
export { extractJson, extractJsonBlock, parseJsonText, BALANCED_PARSE_BUDGET_PER_CHAR } from './extract-json.js';
export type { JsonBlock } from './extract-json.js';
export type { NonJson } from './json-copy.js';
export { createSlateState, slateContents, fileContents, touchedFiles, decodeSlateState } from './slate-state.js';
export type { SlateStreamState, FolderState, FileState, EntryState, SlateFileRef } from './slate-state.js';
export { readSlate, folderIndex, folderTree, renderValue, slateMetatags } from './slate-read.js';
export type { IndexRow, TreeNode, FileMetatags } from './slate-read.js';
export { applyWrite, mergeByKey } from './slate-write.js';
export type { WriteRequest, WriteOutcome, WriteContext, Evicted, Refused } from './slate-write.js';
export { RETRIEVAL_BUDGET_MESSAGE, selectFiles } from './retrieve.js';
export type { RetrievedDocument } from './retrieve.js';
export { loadTokenCounter, MAX_PRETOKEN_CHARS, TOKEN_ENCODINGS } from './token-counter.js';
export type { TokenCounter, TokenEncoding } from './token-counter.js';
export type { Model, ModelRequest, ModelMessage, ModelCompletion, CompleteOptions, TokenUsage } from './model.js';
export { scriptedModel, scriptedModelFromFile, parseScript } from './scripted-model.js';
export type { ScriptedModel } from './scripted-model.js';
export { openAIModel } from './openai-model.js';
export type { OpenAIModelOptions } from './openai-model.js';
export { parseModelSpec, modelFromSpec } from './model-spec.js';
export type { ModelSpec, ModelFromSpecOptions } from './model-spec.js';
export { runLadder } from './run-ladder.js';
export type { RunLadderOptions, LadderRunResult, StepTrace, AbortedAt } from './run-ladder-types.js';
export type { LadderObserver, StepObservation } from './ladder-observer.js';
export { runOutcome } from './run-outcome.js';
export type { RunOutcome } from './run-outcome.js';
// --- sessions (session lifecycle; seeds/ladr-stateful-sessions.txt) ---
export { SessionManager } from './sessions/session-manager.js';
export { DAY_MS } from './sessions/session-retention.js';
export type { SessionManagerOptions, CreateSessionInput, SweepReport } from './sessions/session-manager.js';
export type { ResumeResult } from './sessions/session-pausing.js';
export { pausableModel } from './sessions/session-execution.js';
export type { ExecutionState, RecordedCall, PauseCheckpoint } from './sessions/session-execution.js';
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
