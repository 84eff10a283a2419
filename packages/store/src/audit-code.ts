/**
 * Codes of the problems an audit reports ({@link AuditProblem.code}); stable, never renamed.
 * Store model: DESIGN.md "Tamper evidence", "Fail closed".
 */
export const AuditCode = {
  /** A stored value does not decode as MessagePack of JSON kinds. */
  RECORD_UNDECODABLE: 'RECORD_UNDECODABLE',
  /** A value decodes but has the wrong shape for its key family (or an unknown format). */
  RECORD_INVALID: 'RECORD_INVALID',
  /** A key outside every known family. */
  UNKNOWN_RECORD: 'UNKNOWN_RECORD',
  /** A transition's stored hash differs from sha256(prevHash ‖ canonical(body)). */
  HASH_MISMATCH: 'HASH_MISMATCH',
  /** A transition's prevHash differs from the previous transition's hash. */
  CHAIN_BROKEN: 'CHAIN_BROKEN',
  /** A global seq is missing from the log. */
  SEQ_GAP: 'SEQ_GAP',
  /** A stream's revisions in the log do not rise by one. */
  REVISION_GAP: 'REVISION_GAP',
  /** A retained revision's transition was pruned. */
  HISTORY_MISSING: 'HISTORY_MISSING',
  /** A stored patch does not apply to the replayed state. */
  PATCH_FAILED: 'PATCH_FAILED',
  /** Replay produced an invalid state (e.g. a non-object `lazy` plane). */
  STATE_INVALID: 'STATE_INVALID',
  /** A sealed record (revision index, checkpoint) does not match its seal: its bytes were damaged or moved. */
  SEAL_MISMATCH: 'SEAL_MISMATCH',
  /** A checkpoint's state differs from the replayed state at its revision. */
  CHECKPOINT_MISMATCH: 'CHECKPOINT_MISMATCH',
  /** The checkpoint a stream's origin needs is missing. */
  CHECKPOINT_MISSING: 'CHECKPOINT_MISSING',
  /** A head disagrees with the log (revision or seq), or a stream in the log has no head. */
  HEAD_MISMATCH: 'HEAD_MISMATCH',
  /** A revision/seq index entry disagrees with the log, or is missing. */
  INDEX_MISMATCH: 'INDEX_MISMATCH',
  /** An idempotency record points at a transition without that id, or is missing. */
  ID_MISMATCH: 'ID_MISMATCH',
  /** A revision of a declaration stream is not well-formed or changes what was declared (or a reserved id that is no declaration stream was written). */
  DECLARATION_INVALID: 'DECLARATION_INVALID',
  /** The tip record (`M/tip`) names another last seq than the log's. */
  TIP_MISMATCH: 'TIP_MISMATCH',
} as const;

/** Union of audit problem codes. */
export type AuditCode = (typeof AuditCode)[keyof typeof AuditCode];
