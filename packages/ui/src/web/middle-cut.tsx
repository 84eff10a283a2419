/**
 * A long name cut in the middle, where names of one kind differ (`cwd:/home/…/project-b`), not
 * at the end: the start and the end stay, an ellipsis in between, the whole name on hover
 * (`title`) and for screen readers.
 */

/** Characters kept of a cut name, start and end together. */
export const MIDDLE_CUT_CHARS = 44;

/** `text` cut in the middle to about `max` characters (unchanged when it fits). */
export function middleCut(text: string, max = MIDDLE_CUT_CHARS): string {
  if (text.length <= max) return text;
  const end = Math.floor((max - 1) / 2);
  const start = max - 1 - end;
  return `${text.slice(0, start)}…${text.slice(text.length - end)}`;
}

export function MiddleCut(props: { text: string; max?: number }) {
  const shown = middleCut(props.text, props.max);
  return (
    <span title={props.text} aria-label={shown === props.text ? undefined : props.text} data-full={props.text}>
      {shown}
    </span>
  );
}
