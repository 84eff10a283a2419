/** One entry of a structural diff: its sign, key, and the value before and/or after (a container with unchanged children collapsed says how many). */
import { CHANGE_MARK, shownText } from './format.js';
import type { DiffEntry } from './types.js';

export function DiffRow(props: { entry: DiffEntry }) {
  const e = props.entry;
  const mark = CHANGE_MARK[e.change];
  return (
    <div class={`diff-row ${e.change}`} style={{ paddingLeft: `${(e.depth - 1) * 16 + 4}px` }} data-pointer={e.pointer}>
      <span class="sign" aria-label={mark.label}>
        {mark.sign}
      </span>{' '}
      <span class="key">{e.label}</span>
      {e.container !== undefined ? (
        <span class="muted"> {e.container.unchanged > 0 ? `(${e.container.unchanged} unchanged collapsed)` : ''}</span>
      ) : (
        <span>
          {': '}
          <ChangeText entry={e} />
        </span>
      )}
      <span class="sr-only"> ({mark.label})</span>
    </div>
  );
}

/** `before → after` of a changed value, only `before` of a removed one, only `after` of an added one. */
export function ChangeText(props: { entry: Pick<DiffEntry, 'change' | 'before' | 'after'> }) {
  const e = props.entry;
  return (
    <>
      {e.change !== 'added' && <span class="before">{shownText(e.before)}</span>}
      {e.change === 'changed' && ' → '}
      {e.change !== 'removed' && <span class="after">{shownText(e.after)}</span>}
    </>
  );
}
