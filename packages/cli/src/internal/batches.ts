/**
 * Cutting a bulk command's work into store batches (`publishMany`, `appendMany`: one storage
 * write each, all or nothing): at most `count` items, of at most `size` in all by `sizeOf` — an
 * item larger than `size` makes a batch alone — so each batch stays under a server's request
 * limits (1,000 inputs, a 1 MiB body by default) when the store is a served one.
 */

/** Limits of one batch. */
export interface BatchLimits<T> {
  /** Most items per batch (≥ 1). */
  count: number;
  /** Most `sizeOf` per batch, in the caller's unit (bytes, characters). */
  size: number;
  sizeOf: (item: T) => number;
}

/** `items` in order, in batches within `limits` (see the module comment). */
export async function* inBatches<T>(items: Iterable<T> | AsyncIterable<T>, limits: BatchLimits<T>): AsyncIterable<T[]> {
  let batch: T[] = [];
  let size = 0;
  for await (const item of items) {
    const itemSize = limits.sizeOf(item);
    if (batch.length > 0 && (batch.length === limits.count || size + itemSize > limits.size)) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(item);
    size += itemSize;
  }
  if (batch.length > 0) yield batch;
}
