/**
 * Reading and writing a store's raw storage in tests (dumps for byte-for-byte comparisons,
 * deliberate damage), on any backend of the storage seam. The kit cannot import
 * `@stateflow/store` (the store's own tests use the kit), so a storage is recognised by the two
 * methods used here, which every `Storage` has.
 */

/** The reads of a storage a dump uses (`Storage.iterate` of `@stateflow/store`). */
export interface IterableStorage {
  iterate(options: Record<string, never>): AsyncIterable<[Uint8Array, Uint8Array]>;
}

/** One operation of a raw write (`StorageOp` of `@stateflow/store`). */
export type RawOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** The writes of a storage {@link rawWrite} uses (`Storage.beginWrite` of `@stateflow/store`). */
export interface WritableStorage {
  beginWrite(): Promise<{ commit(ops: RawOp[], options: { sync: boolean }): Promise<void> }>;
}

/** Every key/value of a storage as `keyhex=valuehex`, in key order (for byte-for-byte comparisons). */
export async function dump(storage: IterableStorage): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of storage.iterate({})) out.push(`${Buffer.from(k).toString('hex')}=${Buffer.from(v).toString('hex')}`);
  return out;
}

/** Write `ops` to raw storage in a write session of their own, unsynced (deliberate damage in tests). */
export async function rawWrite(storage: WritableStorage, ops: RawOp[]): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(ops, { sync: false });
}

/** Every item of an async iterable, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
