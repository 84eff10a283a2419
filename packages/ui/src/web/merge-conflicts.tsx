/**
 * The conflicts of a merge preview, one row each: the path, the base, ours (`into`) and theirs
 * (`from`) — `null` is shown as absent (deleted on that side, or never there) — and the choice of
 * a resolution: ours, theirs, or a JSON value typed in (`null` deletes).
 */
import type { Choice } from './merge-plan.js';
import type { JsonValue, MergeConflict } from './types.js';

/** A side's value on one line: JSON, or "(absent)" for `null`. */
export function sideText(value: JsonValue | null): string {
  return value === null ? '(absent)' : JSON.stringify(value);
}

export interface MergeConflictsProps {
  conflicts: MergeConflict[];
  choices: Readonly<Record<string, Choice>>;
  onChoose: (path: string, choice: Choice) => void;
}

export function MergeConflicts(props: MergeConflictsProps) {
  return (
    <table class="merge-conflicts" data-testid="merge-conflicts">
      <caption>
        {props.conflicts.length} conflict{props.conflicts.length === 1 ? '' : 's'}: both streams changed these paths differently since the base
      </caption>
      <thead>
        <tr>
          <th scope="col">path</th>
          <th scope="col">base</th>
          <th scope="col">ours (into)</th>
          <th scope="col">theirs (from)</th>
          <th scope="col">resolution</th>
        </tr>
      </thead>
      <tbody>
        {props.conflicts.map((c) => (
          <tr key={c.path} data-path={c.path}>
            <th scope="row">
              <code>{c.path}</code>
            </th>
            <td class="side-base">{sideText(c.base)}</td>
            <td class="side-ours">{sideText(c.ours)}</td>
            <td class="side-theirs">{sideText(c.theirs)}</td>
            <td>
              <ResolutionPicker conflict={c} choice={props.choices[c.path]} onChoose={(choice) => props.onChoose(c.path, choice)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Ours / theirs / a value for one conflict; choosing "value" starts from theirs (or `null`). */
export function ResolutionPicker(props: { conflict: MergeConflict; choice: Choice | undefined; onChoose: (choice: Choice) => void }) {
  const c = props.conflict;
  const choice = props.choice;
  const name = `resolve-${c.path}`;
  const isValue = choice !== undefined && 'text' in choice;
  return (
    <fieldset class="resolution">
      <legend class="sr-only">Resolution of {c.path}</legend>
      {(['ours', 'theirs'] as const).map((side) => (
        <label class="check" key={side}>
          <input type="radio" name={name} checked={choice !== undefined && 'side' in choice && choice.side === side} onChange={() => props.onChoose({ side })} data-testid={`pick-${side}`} />{' '}
          {side}
        </label>
      ))}
      <label class="check">
        <input type="radio" name={name} checked={isValue} onChange={() => props.onChoose({ text: JSON.stringify(c.theirs) })} data-testid="pick-value" /> value
      </label>
      {isValue && (
        <textarea
          aria-label={`JSON value for ${c.path}`}
          value={choice.text}
          rows={2}
          onInput={(e) => props.onChoose({ text: (e.target as HTMLTextAreaElement).value })}
          data-testid="pick-value-text"
        />
      )}
    </fieldset>
  );
}
