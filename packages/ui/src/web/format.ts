/** How values, times and changes are written on the page (text, so meaning never rests on colour alone). */
import type { JsonValue, ShownValue, ValueSummary } from './types.js';

/** A one-line rendering of a summarised value: `"text"`, `12`, `{3 keys}`, `[5 items]`. */
export function summaryText(value: ValueSummary): string {
  switch (value.kind) {
    case 'object':
      return `{${value.size ?? 0} ${value.size === 1 ? 'key' : 'keys'}}`;
    case 'array':
      return `[${value.length ?? 0} ${value.length === 1 ? 'item' : 'items'}]`;
    case 'string':
      return `${JSON.stringify(value.preview ?? '')}${value.truncated === true ? `… (${value.length} chars)` : ''}`;
    default:
      return String(value.preview);
  }
}

/** A value as JSON on one line, cut at `max` characters. */
export function jsonLine(value: JsonValue | undefined, max = 160): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A path-history or diff value: absent, whole, or summarised. */
export function shownText(value: ShownValue | undefined): string {
  if (value === undefined || 'absent' in value) return '(absent)';
  return 'summary' in value ? summaryText(value.summary) : jsonLine(value.value);
}

/** Sign and label of a change kind: colour-independent. */
export const CHANGE_MARK: Record<'added' | 'removed' | 'changed', { sign: string; label: string }> = {
  added: { sign: '+', label: 'added' },
  removed: { sign: '−', label: 'removed' },
  changed: { sign: '~', label: 'changed' },
};

/** `2026-12-01 10:04:05` in local time. */
export function timeText(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Copy text to the clipboard; falls back to a selection-based copy where the API is refused. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}
