/**
 * The merge view's flow: preview (a dry run, and `into`'s state at the revision it read), a choice
 * per conflict, then "publish": a second dry run with the resolutions, pinned to what the preview
 * read, gives the exact patch to confirm; confirming publishes it guarded by the head previewed.
 * Any failure ends the step with a message and publishes nothing.
 */
import { useState } from 'preact/hooks';
import { resolutions, type Choice } from './merge-plan.js';
import { mergeFailureText, previewMerge, publishMerge, stateAt, type MergePreview, type MergeRequest } from './merge-requests.js';
import type { JsonObject } from './types.js';

/** A preview shown: the plan and `into`'s state at `plan.intoRev`. */
export interface Shown {
  plan: MergePreview;
  state: JsonObject;
}

/** What {@link useMerge} hands out. */
export interface MergeFlow {
  shown: Shown | null;
  choices: Record<string, Choice>;
  choose: (path: string, choice: Choice) => void;
  /** The plan with the resolutions, waiting for confirmation. */
  pending: MergePreview | null;
  message: { text: string; error: boolean } | null;
  busy: boolean;
  preview: (from: string, into: string) => Promise<void>;
  /** Problems that keep the merge from being published (unresolved conflicts, values not JSON). */
  problems: string[];
  prepare: () => Promise<void>;
  confirm: () => Promise<void>;
  cancel: () => void;
}

/** The flow; `onDone` hears the message of a published merge. */
export function useMerge(onDone: (message: string) => void): MergeFlow {
  const [shown, setShown] = useState<Shown | null>(null);
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [pending, setPending] = useState<MergePreview | null>(null);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const settled = shown === null ? null : resolutions(shown.plan.conflicts.map((c) => c.path), choices);
  const problems = settled !== null && 'problems' in settled ? settled.problems : [];

  const step = async (into: string, intoRev: number | null, work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (err) {
      setMessage({ text: mergeFailureText(err, into, intoRev), error: true });
      setPending(null);
    } finally {
      setBusy(false);
    }
  };
  /** A step on the plan shown (none shown: nothing to do), with the request pinned to it. */
  const onPlan = (work: (plan: MergePreview, request: MergeRequest) => Promise<void>) => async () => {
    if (shown === null) return;
    const plan = shown.plan;
    const resolve = settled !== null && 'resolve' in settled ? settled.resolve : {};
    const request = { from: plan.from, into: plan.into, pinned: { fromRev: plan.fromRev, intoRev: plan.intoRev }, resolve };
    await step(plan.into, plan.intoRev, () => work(plan, request));
  };

  return {
    shown,
    choices,
    choose: (path, choice) => setChoices((c) => ({ ...c, [path]: choice })),
    pending,
    message,
    busy,
    problems,
    preview: (from, into) =>
      step(into, null, async () => {
        setMessage(null);
        setShown(null);
        setChoices({});
        const plan = await previewMerge({ from, into });
        setShown({ plan, state: await stateAt(into, plan.intoRev) });
      }),
    prepare: onPlan(async (_plan, request) => setPending(await previewMerge(request))),
    confirm: onPlan(async (plan, request) => {
      const result = await publishMerge(request);
      setPending(null);
      const text =
        result.status === 'noop' ? `Nothing to merge: ${plan.into} already holds every change.` : `Merged ${plan.from} into ${plan.into}: published transition ${result.transition?.seq ?? '?'}.`;
      setMessage({ text, error: false });
      setShown(null);
      onDone(text);
    }),
    cancel: () => setPending(null),
  };
}
