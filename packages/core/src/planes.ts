/**
 * The documented top-level planes of a scope (seed "Semantic model"; DESIGN.md "Effective
 * overlay and planes").
 *
 * ```
 * global | cwd | session
 *   ├── intents ├── strategy ├── tactics ├── artifacts ├── response └── lazy
 * ```
 */

/** A documented top-level plane. */
export type Plane = 'intents' | 'strategy' | 'tactics' | 'artifacts' | 'response' | 'lazy';

/** Every documented plane, in the seed's order (hot planes first, `lazy` last). */
export const PLANES: readonly Plane[] = ['intents', 'strategy', 'tactics', 'artifacts', 'response', 'lazy'];

/**
 * The hot planes in intent-first order: the order in which runtime views (the baseline
 * snapshot) present them. `lazy` is never hot; `response` is projected only in Active mode.
 */
export const HOT_PLANES: readonly Exclude<Plane, 'lazy'>[] = ['intents', 'strategy', 'tactics', 'artifacts', 'response'];

/** True when `key` names a documented plane (an own top-level key of a scope root). */
export function isPlane(key: string): key is Plane {
  return (PLANES as readonly string[]).includes(key);
}
