/**
 * Stamping who wrote each transition (README "Who wrote it"): a {@link Store} whose `publish`,
 * `publishMany`, `merge` and `undo` put `writer()` into every input's `meta.writer`, replacing whatever
 * the input carried there; the rest of the input's `meta` is kept. The server stamps its
 * request's writer with it, the CLI its own; a library caller may use it, or pass `meta.writer`
 * itself. `fork` and `revert` record the store's own meta (`fork`, `revert`) unstamped.
 */
import type { JsonObject } from '@stateflow/core';
import type { MergeInput, PublishInput, PublishManyOptions, Store, UndoInput } from './types.js';

/**
 * `store` with every publication's `meta.writer` set to `writer()` (called once per input, as it
 * is published). Everything but `publish`, `publishMany`, `merge` and `undo` is `store`'s own.
 * @example
 * const store = stampWriter(await openStore(dir), () => ({ user: 'ci', surface: 'batch' }));
 * await store.publish({ changes: { global: { ok: true } } }); // meta: { writer: { user: 'ci', … } }
 */
export function stampWriter(store: Store, writer: () => JsonObject): Store {
  const stamped = <T extends { meta?: JsonObject }>(input: T): T =>
    input !== null && typeof input === 'object' ? { ...input, meta: { ...input.meta, writer: writer() } } : input;
  return new Proxy(store, {
    get(target, key) {
      if (key === 'publish') return (input: PublishInput) => target.publish(stamped(input));
      if (key === 'publishMany') return (inputs: PublishInput[], options?: PublishManyOptions) => target.publishMany(Array.isArray(inputs) ? inputs.map(stamped) : inputs, options);
      if (key === 'merge') return (input: MergeInput) => target.merge(stamped(input));
      if (key === 'undo') return (input: UndoInput) => target.undo(stamped(input));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
