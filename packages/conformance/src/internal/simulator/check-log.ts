/**
 * The history against the log (Jepsen's checks of a register with unique writes): the log's seqs
 * run 1…N; every acknowledged transition is in it exactly once with the hash it was acknowledged
 * with — or, when acknowledged with buffered durability, was lost by a later power loss; a
 * duplicate answer returns a transition carrying the id asked for; an idempotency id is applied
 * at most once; every transition was made by a call that was not refused (a failed call changes
 * nothing) and whose answer, if it had one, names it.
 */
import type { PublishResult, Transition } from '@stateflow/store';
import type { Calls } from './attribution.js';
import { canHaveMade, markersOf, resultFor } from './attribution.js';
import type { OpRecord, PublishSpec } from './history.js';
import type { LostCommits } from './world.js';

function checkMakers(log: readonly Transition[], calls: Calls, report: (problem: string) => void): void {
  const ids = new Map<string, number>();
  for (const t of log) {
    if (t.id !== undefined) {
      if (ids.has(t.id)) report(`idempotency id ${t.id} applied twice: seqs ${ids.get(t.id)} and ${t.seq}`);
      ids.set(t.id, t.seq);
    }
    const candidates = calls.candidates(t);
    if (candidates.length === 0) report(`seq ${t.seq} was made by no call of the history (meta ${JSON.stringify(t.meta)})`);
    else if (!candidates.some((maker) => canHaveMade(maker, t))) {
      report(`seq ${t.seq} was made by ${candidates.map((m) => `${m.rec.label} (${outcomeText(m.rec)})`).join(', ')}: a call refused or answered otherwise changed the log`);
    }
  }
}

const outcomeText = (rec: OpRecord): string => (rec.outcome.kind === 'fail' ? `failed ${rec.outcome.code}` : rec.outcome.kind === 'ok' ? 'ok' : `unknown: ${rec.outcome.why}`);

/**
 * Check an acknowledged transition `t` (answered `status` to `rec` for `input`): present at its
 * seq with its hash, or lost by a power loss of the call's epoch when it was buffered.
 */
function checkAcknowledged(rec: OpRecord, input: PublishSpec | undefined, result: PublishResult, log: readonly Transition[], lost: readonly LostCommits[], report: (problem: string) => void): void {
  const t = result.transition;
  if (t === null) return;
  if (result.status === 'duplicate') {
    const asked = input?.id ?? (rec.spec.kind === 'fork' || rec.spec.kind === 'merge' ? rec.spec.id : undefined);
    if (t.id !== asked) report(`${rec.label}: duplicate of id ${String(asked)} answered with seq ${t.seq}, which carries id ${String(t.id)}`);
  }
  if (log[t.seq - 1]?.hash === t.hash) return;
  // An accepted transition was committed in the call's epoch; a duplicate's in it or an earlier one it survived into.
  const lostHere = lost.some((l) => l.seqs.includes(t.seq) && (result.status === 'accepted' ? l.epoch === rec.epoch : l.epoch <= rec.epoch && l.lostIn >= rec.epoch));
  if (!lostHere) report(`${rec.label}: ${result.status} seq ${t.seq} (hash ${t.hash.slice(0, 12)}…) is not in the log`);
  else if (input?.durability === 'fsync' && result.status === 'accepted') report(`${rec.label}: seq ${t.seq} was acknowledged with fsync and lost by a power loss`);
}

/** Refusals that come after the id check: a call answering one had found no transition with its id. */
const AFTER_ID = new Set(['CONFLICT', 'PATCH_INVALID', 'MERGE_CONFLICT', 'MERGE_UNRELATED', 'HISTORY_NOT_RETAINED', 'REVISION_NOT_FOUND']);

/** The id a call sent, when it sent one input with one (publish, fork, merge). */
function idOf(rec: OpRecord): string | undefined {
  const { spec } = rec;
  if (spec.kind === 'publish') return spec.input.id;
  if (spec.kind === 'fork' || spec.kind === 'merge') return spec.id;
  return undefined;
}

/**
 * A retry of an id that had landed before the retry began (every call that can have made its
 * transition had ended) must answer `duplicate`: not a refusal that the id check comes before,
 * not `noop`, not a new transition.
 */
function checkRetries(history: readonly OpRecord[], log: readonly Transition[], calls: Calls, report: (problem: string) => void): void {
  const byId = new Map<string, Transition>();
  for (const t of log) if (t.id !== undefined) byId.set(t.id, t);
  for (const rec of history) {
    const id = idOf(rec);
    const t = id === undefined ? undefined : byId.get(id);
    if (t === undefined) continue;
    const result = resultFor(rec, rec.spec.kind === 'publish' ? rec.spec.input : undefined);
    const answer = rec.outcome.kind === 'fail' ? (AFTER_ID.has(rec.outcome.code) ? rec.outcome.code : null) : (result?.status ?? null);
    // Its own transition, or the original's.
    if (answer === null || answer === 'duplicate' || (answer === 'accepted' && result?.transition?.hash === t.hash)) continue;
    const makers = calls.candidates(t).filter((m) => m.rec !== rec && canHaveMade(m, t));
    if (makers.length > 0 && makers.every((m) => m.rec.completed < rec.invoked)) report(`${rec.label}: id ${String(id)} had landed at seq ${t.seq} before this call, which answered ${answer} instead of duplicate`);
  }
}

/** Every check of this module; `log` is the unpruned log (`log[i]` has seq i + 1). */
export function checkLog(history: readonly OpRecord[], log: readonly Transition[], lost: readonly LostCommits[], calls: Calls, report: (problem: string) => void): void {
  log.forEach((t, i) => {
    if (t.seq !== i + 1) report(`the log holds seq ${t.seq} at position ${i + 1}`);
  });
  checkMakers(log, calls, report);
  checkRetries(history, log, calls, report);
  for (const rec of history) {
    if (rec.outcome.kind !== 'ok') continue;
    const inputs = markersOf(rec);
    if (inputs.length === 0 && rec.outcome.value.kind === 'publish') {
      for (const result of rec.outcome.value.results) checkAcknowledged(rec, undefined, result, log, lost, report);
    }
    for (const { input } of inputs) {
      const result = resultFor(rec, input);
      if (result !== undefined) checkAcknowledged(rec, input, result, log, lost, report);
    }
  }
}
