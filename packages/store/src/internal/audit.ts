/**
 * The audit (DESIGN.md "Tamper evidence"): reads every stored record once, replays every stream
 * from its origin checkpoint, and checks the hash chain link by link, every checkpoint, every
 * head, the revision and seq indexes and the idempotency records. It never writes and never
 * stops at the first problem.
 *
 * Memory is O(streams + checkpoints + ids + problems) plus a compact spill of 25 bytes per change:
 * heads, checkpoint hashes and replayed states are per stream; the indexes are checked by
 * merge-joins in key order against each stream's changes in typed-array columns
 * (`audit-indexes.ts` explains why a spill rather than per-stream cursors); idempotency ids are
 * optional client ids and stay in a map.
 */
import { applyPatch, isJsonObject, isStateflowError } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { AuditCode } from '../audit-code.js';
import type { AuditProblem, AuditReport } from '../types.js';
import { hash } from 'node:crypto';
import { decodeRaw, decodeValue } from './codec.js';
import { GENESIS_HASH, stateHash, transitionHash } from './hash.js';
import { checkRevisionIndex, checkSeqIndex, patchDigest, StreamChanges } from './audit-indexes.js';
import { Family, checkpointKey, describeKey, familyRange, gapRanges, parseKey } from './keys.js';
import { FORMAT, SEAL_BYTES, checkpointBody, decodeCheckpoint, decodeCount, decodeHead, decodeLog, decodeRevision, decodeTip, decodeWalMark, sealHolds } from './records.js';
import type { HeadRecord, LogRecord, RevisionRecord, TipRecord } from './records.js';
import type { StorageReader } from '../storage.js';
import { stateProblem } from './validate.js';

/** Per-stream replay progress. */
interface Replay {
  rev: number;
  state: JsonObject;
  /** False once a problem makes further replay of this stream meaningless. */
  ok: boolean;
}

/**
 * Audit everything in `storage`. `onProgress(done, total)` counts log records (total = the
 * highest stored seq).
 */
export async function runAudit(storage: StorageReader, onProgress?: (done: number, total: number) => void): Promise<AuditReport> {
  const problems: AuditProblem[] = [];
  const report = (code: AuditCode, key: Uint8Array | string, detail: string, stream?: string): void => {
    const problem: AuditProblem = { code, key: typeof key === 'string' ? key : describeKey(key), detail };
    if (stream !== undefined) problem.stream = stream;
    problems.push(problem);
  };

  // Meta records: the format record, and the tip record that every commit writes.
  const meta = await checkMetaRecords(storage);
  if (meta.formatProblem !== null) report(AuditCode.RECORD_INVALID, 'M/format', meta.formatProblem);
  for (const problem of meta.others) report(AuditCode.RECORD_INVALID, problem.key, problem.detail);

  // Heads.
  const heads = new Map<string, HeadRecord>();
  for await (const [key, value] of storage.iterate(familyRange(Family.head))) {
    const k = parseKey(key);
    if (k.family !== 'head') {
      report(AuditCode.UNKNOWN_RECORD, key, 'malformed head key');
      continue;
    }
    try {
      heads.set(k.stream, decodeHead(key, value, k.stream));
    } catch (err) {
      report(codeOf(value), key, messageOf(err), k.stream);
    }
  }

  // Checkpoints: verify each one, keep the hashes and the origin states.
  // Each checkpoint's state is kept as a digest of its JSON text (much cheaper than RFC 8785):
  // replay builds states with the same key order, so equal states serialise equally; a digest
  // mismatch is confirmed with canonical hashes before it is reported.
  const checkpoints = new Map<string, Map<number, { digest: string; seq: number }>>();
  const replays = new Map<string, Replay>();
  let checkpointCount = 0;
  for await (const [key, value] of storage.iterate(familyRange(Family.checkpoint))) {
    const k = parseKey(key);
    if (k.family !== 'checkpoint') {
      report(AuditCode.UNKNOWN_RECORD, key, 'malformed checkpoint key');
      continue;
    }
    checkpointCount++;
    try {
      const cp = decodeCheckpoint(key, value, k.stream, k.n);
      const perStream = checkpoints.get(k.stream) ?? new Map<number, { digest: string; seq: number }>();
      perStream.set(k.n, { digest: stateDigest(cp.state), seq: cp.seq });
      checkpoints.set(k.stream, perStream);
      const origin = heads.get(k.stream)?.origin;
      if (origin !== undefined && origin > 0 && k.n === origin) replays.set(k.stream, { rev: origin, state: cp.state, ok: true });
      if (origin !== undefined && k.n < origin) report(AuditCode.RECORD_INVALID, key, `checkpoint below the origin ${origin} should have been deleted by compaction`, k.stream);
    } catch (err) {
      report(checkpointCode(key, value, k.stream), key, messageOf(err), k.stream);
    }
  }
  for (const [stream, head] of heads) {
    if (head.origin > 0 && !replays.has(stream)) {
      report(AuditCode.CHECKPOINT_MISSING, `C/${stream}/${head.origin}`, `no valid checkpoint at the origin ${head.origin}`, stream);
      replays.set(stream, { rev: head.origin, state: {}, ok: false });
    }
  }
  const replayOf = (stream: string): Replay => {
    let r = replays.get(stream);
    if (r === undefined) {
      r = { rev: 0, state: {}, ok: true };
      replays.set(stream, r);
    }
    return r;
  };
  const originOf = (stream: string): number => heads.get(stream)?.origin ?? 0;

  // The log, in seq order: chain, hashes, replay.
  let total = 0;
  for await (const [key] of storage.iterate({ ...familyRange(Family.log), reverse: true, limit: 1 })) {
    const k = parseKey(key);
    if (k.family === 'log') total = k.seq;
  }
  /** Every stream's changes in log order, for the index checks. */
  const logged = new Map<string, StreamChanges>();
  const loggedChanges = (stream: string): StreamChanges => {
    let changes = logged.get(stream);
    if (changes === undefined) {
      changes = new StreamChanges();
      logged.set(stream, changes);
    }
    return changes;
  };
  /** Streams with an unpruned change above their origin, each with the seq that produced its head revision (if any). */
  const headSeqs = new Map<string, number | undefined>();
  const ids = new Map<string, number>();
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let transitions = 0;
  let done = 0;
  for await (const [key, value] of storage.iterate(familyRange(Family.log))) {
    const k = parseKey(key);
    if (k.family !== 'log') {
      report(AuditCode.UNKNOWN_RECORD, key, 'key in the log family with a malformed seq');
      continue;
    }
    if (k.seq !== expectedSeq) report(AuditCode.SEQ_GAP, key, `transitions ${expectedSeq}..${k.seq - 1} are missing`);
    expectedSeq = k.seq + 1;
    onProgress?.(++done, total);
    let record: LogRecord;
    try {
      record = decodeLog(key, value, k.seq, { verifyHash: false });
    } catch (err) {
      report(codeOf(value), key, messageOf(err));
      prevHash = '';
      continue;
    }
    const stream = record.changes[0]?.stream;
    if (prevHash !== '' && record.prevHash !== prevHash) {
      report(AuditCode.CHAIN_BROKEN, key, `prevHash ${record.prevHash.slice(0, 12)}… does not match the previous transition's hash ${prevHash.slice(0, 12)}…`, stream);
    }
    prevHash = record.hash;
    if (record.id !== undefined) ids.set(record.id, record.seq);
    if (record.pruned) {
      for (const c of record.changes) {
        loggedChanges(c.stream).push(record.seq, c.rev, { pruned: true, digest: 0 });
        if (c.rev > originOf(c.stream)) report(AuditCode.HISTORY_MISSING, key, `revision ${c.rev} is retained (origin ${originOf(c.stream)}) but its transition was pruned`, c.stream);
      }
      continue;
    }
    transitions++;
    if (transitionHash(record.prevHash, record) !== record.hash) {
      report(AuditCode.HASH_MISMATCH, key, 'the stored hash differs from sha256(prevHash ‖ canonical(body))', stream);
    }
    for (const c of record.changes) {
      const indexed = c.rev > originOf(c.stream);
      loggedChanges(c.stream).push(record.seq, c.rev, { pruned: false, digest: indexed ? patchDigest(c.patch) : 0 });
      if (!indexed) continue;
      headSeqs.set(c.stream, c.rev === heads.get(c.stream)?.rev ? record.seq : headSeqs.get(c.stream));
      const r = replayOf(c.stream);
      if (!r.ok) continue;
      if (c.rev !== r.rev + 1) {
        report(AuditCode.REVISION_GAP, key, `stream revision ${c.rev} follows revision ${r.rev}`, c.stream);
        r.ok = false;
        continue;
      }
      try {
        r.state = applyPatch(r.state, c.patch);
      } catch (err) {
        report(AuditCode.PATCH_FAILED, key, `the patch of revision ${c.rev} does not apply: ${messageOf(err)}`, c.stream);
        r.ok = false;
        continue;
      }
      r.rev = c.rev;
      const invalid = stateProblem(c.stream, r.state);
      if (invalid !== null) {
        report(AuditCode.STATE_INVALID, key, `revision ${c.rev}: ${invalid}`, c.stream);
        r.ok = false;
        continue;
      }
      const cp = checkpoints.get(c.stream)?.get(c.rev);
      if (cp !== undefined && (cp.seq !== record.seq || (cp.digest !== stateDigest(r.state) && !(await sameState(storage, c.stream, c.rev, r.state))))) {
        report(AuditCode.CHECKPOINT_MISMATCH, `C/${c.stream}/${c.rev}`, 'the checkpoint differs from the replayed state at its revision', c.stream);
      }
    }
  }

  // The tip record against the log (stores written before 0.2 have none).
  if (meta.tip !== null && meta.tip.seq !== expectedSeq - 1) {
    report(AuditCode.TIP_MISMATCH, 'M/tip', `the tip record says the last seq is ${meta.tip.seq}, the log ends at ${expectedSeq - 1}`);
  }

  // Heads against the replay.
  for (const [stream, head] of heads) {
    const r = replays.get(stream) ?? { rev: 0, state: {}, ok: true };
    if (!r.ok) continue;
    const seq = head.rev === head.origin ? undefined : headSeqs.get(stream);
    if (r.rev !== head.rev || (seq !== undefined && seq !== head.seq)) {
      report(AuditCode.HEAD_MISMATCH, `H/${stream}`, `head says revision ${head.rev} at seq ${head.seq}; the log replays to revision ${r.rev}`, stream);
    }
    for (const rev of checkpoints.get(stream)?.keys() ?? []) {
      if (rev > head.rev) report(AuditCode.CHECKPOINT_MISMATCH, `C/${stream}/${rev}`, `checkpoint beyond the head revision ${head.rev}`, stream);
    }
  }
  for (const stream of headSeqs.keys()) {
    if (!heads.has(stream)) report(AuditCode.HEAD_MISMATCH, `H/${stream}`, 'stream has transitions but no head', stream);
  }

  // Revision index, then seq index: merge-joins in key order.
  const decode = (key: Uint8Array, value: Uint8Array, stream: string): number | undefined => decodeIndex(key, value, stream, report);
  const decodeRev = (key: Uint8Array, value: Uint8Array, stream: string, rev: number): RevisionRecord | undefined => {
    try {
      return decodeRevision(key, value, stream, rev);
    } catch (err) {
      report(sealedCode(key, value), key, messageOf(err), stream);
      return undefined;
    }
  };
  const hasCheckpoint = (stream: string, rev: number): boolean => checkpoints.get(stream)?.has(rev) === true;
  await checkRevisionIndex(storage, logged, { originOf, hasCheckpoint }, decodeRev, report);
  await checkSeqIndex(storage, logged, decode, report);

  // Idempotency records.
  for await (const [key, value] of storage.iterate(familyRange(Family.id))) {
    const k = parseKey(key);
    if (k.family !== 'id') {
      report(AuditCode.UNKNOWN_RECORD, key, 'malformed idempotency key');
      continue;
    }
    const seq = decodeIndex(key, value, undefined, report);
    if (seq !== undefined && ids.get(k.id) !== seq) report(AuditCode.ID_MISMATCH, key, `points at seq ${seq}, which does not carry this id`);
    ids.delete(k.id);
  }
  for (const [id, seq] of ids) report(AuditCode.ID_MISMATCH, `I/${id}`, `transition ${seq} carries this id but the idempotency record is missing`);

  // Anything else: keys between and around the families (each family's pass reported its own
  // malformed keys), so the families are not read twice.
  for (const range of gapRanges()) {
    for await (const [key] of storage.iterate(range)) report(AuditCode.UNKNOWN_RECORD, key, 'key outside every known family');
  }

  const streams = [...heads.values()].filter((h) => h.rev > 0).length;
  return { transitions, streams, checkpoints: checkpointCount, problems };
}

/** sha256 of a state's JSON text (see the checkpoint pass of {@link runAudit}). */
function stateDigest(state: JsonObject): string {
  return hash('sha256', JSON.stringify(state), 'base64');
}

/** Whether the checkpoint of `stream` at `rev` holds `state` by RFC 8785 hash (a digest mismatch's confirmation). */
async function sameState(storage: StorageReader, stream: string, rev: number, state: JsonObject): Promise<boolean> {
  const key = checkpointKey(stream, rev);
  const bytes = await storage.get(key);
  return bytes !== undefined && stateHash(decodeCheckpoint(key, bytes, stream, rev).state) === stateHash(state);
}

function decodeIndex(
  key: Uint8Array,
  value: Uint8Array,
  stream: string | undefined,
  report: (code: AuditCode, key: Uint8Array, detail: string, stream?: string) => void,
): number | undefined {
  try {
    return decodeCount(key, value, stream);
  } catch (err) {
    report(codeOf(value), key, messageOf(err), stream);
    return undefined;
  }
}

/** The format record's problem (or null), the tip record (when there is one), and any other meta problem. */
async function checkMetaRecords(storage: StorageReader): Promise<{ formatProblem: string | null; tip: TipRecord | null; others: { key: string; detail: string }[] }> {
  let formatProblem: string | null = 'format record is missing';
  let tip: TipRecord | null = null;
  const others: { key: string; detail: string }[] = [];
  for await (const [key, value] of storage.iterate(familyRange(Family.meta))) {
    const k = parseKey(key);
    if (k.family === 'meta' && k.name === 'format') {
      try {
        const v = decodeValue(value);
        formatProblem = isJsonObject(v) && v.format === FORMAT.format && v.version === FORMAT.version ? null : 'format record names another format';
      } catch {
        formatProblem = 'format record does not decode';
      }
    } else if (k.family === 'meta' && k.name === 'tip') {
      try {
        tip = decodeTip(key, value);
      } catch (err) {
        others.push({ key: describeKey(key), detail: messageOf(err) });
      }
    } else if (k.family === 'meta' && k.name === 'wal') {
      try {
        decodeWalMark(key, value);
      } catch (err) {
        others.push({ key: describeKey(key), detail: messageOf(err) });
      }
    } else others.push({ key: describeKey(key), detail: `unknown meta record ${describeKey(key)}` });
  }
  return { formatProblem, tip, others };
}

/** Classify a sealed record that failed verification: SEAL_MISMATCH, else by its body ({@link codeOf}). */
function sealedCode(key: Uint8Array, value: Uint8Array): AuditCode {
  return sealHolds(key, value) ? codeOf(value.subarray(0, value.byteLength - SEAL_BYTES)) : AuditCode.SEAL_MISMATCH;
}

/** Classify a checkpoint that failed verification ({@link sealedCode}; STATE_INVALID for a sealed invalid state). */
function checkpointCode(key: Uint8Array, value: Uint8Array, stream: string): AuditCode {
  const code = sealedCode(key, value);
  if (code !== AuditCode.RECORD_INVALID) return code;
  try {
    const { state } = checkpointBody(key, value.subarray(0, value.byteLength - SEAL_BYTES), stream);
    return stateProblem(stream, state) !== null ? AuditCode.STATE_INVALID : AuditCode.RECORD_INVALID;
  } catch {
    return AuditCode.RECORD_INVALID;
  }
}

/** RECORD_UNDECODABLE when the bytes are not MessagePack at all, else RECORD_INVALID. */
function codeOf(value: Uint8Array): AuditCode {
  try {
    decodeRaw(value);
    return AuditCode.RECORD_INVALID;
  } catch {
    return AuditCode.RECORD_UNDECODABLE;
  }
}

function messageOf(err: unknown): string {
  if (isStateflowError(err, 'STORE_CORRUPT')) return err.details.detail ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
