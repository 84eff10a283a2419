/** The virtual list's own keys: the row each moves the active row to (clamped to the list), or Enter to activate it. Pure. */

/** What a key does: move the active row to `to`, activate the active row, or nothing (`null`). */
export type ListKeyAction = { move: number } | { activate: true } | null;

/** The action of `key` on active row `active` of `count` rows, with `page` rows a PageUp/PageDown. */
export function listKey(key: string, active: number, count: number, page: number): ListKeyAction {
  const targets: Record<string, number> = {
    ArrowDown: active + 1,
    ArrowUp: active - 1,
    PageDown: active + page,
    PageUp: active - page,
    Home: 0,
    End: count - 1,
  };
  if (key === 'Enter') return { activate: true };
  const to = targets[key];
  return to === undefined ? null : { move: Math.max(0, Math.min(count - 1, to)) };
}
