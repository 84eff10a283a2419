/**
 * Options of the semantic patch functions ({@link validatePatch}, {@link applyPatch},
 * {@link netPatch}, {@link applyWithIntentOwnership}).
 */
export interface PatchOptions {
  /**
   * What an object patch that lands on an absent or non-object value and leaves an empty object
   * there does (`{"a": {}}` where `a` is absent or `5`; `{"a": {"b": null}}` likewise):
   * - `'create'` (default): RFC 7396's reading — it creates or replaces the value with `{}`.
   *   Stored histories replay with this reading, whatever wrote them (diffs of imported
   *   documents hold such patches).
   * - `'refuse'`: `PATCH_INVALID` with `reason: 'empty-object'`. The seed shows "no change" as
   *   `{}`, so such a `{}` inside a larger patch (a parent path's `patch` projection, the
   *   baseline's recent transitions) would read as no change; the agent patch language
   *   (`patch_state`) refuses it. An empty object can still be written inside an array
   *   (`{"a": [{}]}`), where it is data, not a patch.
   */
  emptyObjects?: 'create' | 'refuse';
}

/** The walker's option for `options`. */
export function refusesEmptyObjects(options: PatchOptions | undefined): boolean {
  return options?.emptyObjects === 'refuse';
}
