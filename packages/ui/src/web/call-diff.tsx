/** What one ladder call changed in its slates: each changed leaf with its sign, pointer and values (not known when the call before it was compacted). */
import { ChangeText } from './diff-row.js';
import { CHANGE_MARK } from './format.js';
import type { SlatesAtCall } from './types.js';

export function CallDiff(props: { rev: number; call: SlatesAtCall['call'] }) {
  const call = props.call;
  return (
    <>
      <h3>What call {props.rev} changed</h3>
      {call === null ? (
        <p class="muted">Not known (the call before it was compacted, or this is the first revision).</p>
      ) : call.entries.length === 0 ? (
        <p class="muted">Nothing (a read-only call records only its read times).</p>
      ) : (
        <ul class="call-diff" data-testid="slates-call-diff">
          {call.entries
            .filter((e) => e.container === undefined)
            .map((e) => (
              <li key={e.pointer} class={e.change}>
                <span class="sign" aria-label={CHANGE_MARK[e.change].label}>
                  {CHANGE_MARK[e.change].sign}
                </span>{' '}
                <code>{e.pointer}</code>: <ChangeText entry={e} />
              </li>
            ))}
        </ul>
      )}
    </>
  );
}
