/**
 * The ready-made initializer for the one backend `@stateflow/store` itself ships: `memory-level`.
 * A persistent backend's initializer lives with that backend's test file (a directory or a
 * database per store, and how to drop it): the suite depends on the store's public interface
 * alone.
 */
import { openMemoryStore } from '@stateflow/store';
import type { Store, StoreOptions } from '@stateflow/store';
import type { StoreInitializer } from './initializer.js';

/**
 * Initializer for in-memory stores (`openMemoryStore`). It has no `reopen`: tests that need
 * persistence are skipped with that reason recorded.
 * @example
 * ```ts
 * runConformance(memoryInitializer(), { describe, it });
 * ```
 */
export function memoryInitializer(): StoreInitializer {
  return {
    name: 'memory-level',
    create: (options?: StoreOptions) => openMemoryStore(options),
    // close() is idempotent: a test may already have closed the store.
    destroy: (store: Store) => store.close(),
  };
}
