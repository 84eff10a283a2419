/**
 * Byte order, differentially: random keys and ranges iterate on the storage exactly as on
 * memory-level — LevelDB's byte order (unsigned memcmp, shorter first on a common prefix) — as
 * the oracle, forward and reverse, with limits, and `getMany` answers in the order of its keys.
 * Run count and seed from the options, else `STATEFLOW_FC_RUNS` / `STATEFLOW_FC_SEED`.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openMemoryStorage } from '@stateflow/store';
import type { IterateOptions, Storage, StorageReader } from '@stateflow/store';
import { fcParams } from '../internal/fc-params.js';
import type { SeamRegistry } from './seam-support.js';

/** Every entry of `options` on `reader`, `key=value` in hex. */
async function entriesOf(reader: StorageReader, options: IterateOptions): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of reader.iterate(options)) out.push(`${Buffer.from(k).toString('hex')}=${Buffer.from(v).toString('hex')}`);
  return out;
}

async function putAll(storage: Storage, entries: Array<[Uint8Array, Uint8Array]>, type: 'put' | 'del' = 'put'): Promise<void> {
  const session = await storage.beginWrite();
  await session.commit(
    entries.map(([key, value]) => (type === 'put' ? { type, key, value } : { type, key })),
    { sync: false },
  );
}

const hexOrNull = (values: (Uint8Array | undefined)[]): (string | null)[] => values.map((v) => (v === undefined ? null : Buffer.from(v).toString('hex')));

/** The differential test. */
export function byteOrder({ test, options }: SeamRegistry): void {
  test('iterates random keys in the byte order LevelDB uses (memory-level as the oracle), forward and reverse, with ranges and limits', async (storage) => {
    const oracle = await openMemoryStorage();
    const key = fc.uint8Array({ minLength: 0, maxLength: 6 }).map((b) => (b.length === 0 ? Uint8Array.of(0) : b));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(key, { minLength: 1, maxLength: 40, selector: (b) => Buffer.from(b).toString('hex') }),
          fc.option(key),
          fc.option(key),
          fc.boolean(),
          fc.option(fc.nat({ max: 12 })),
          async (keys, gte, lt, reverse, limit) => {
            // Each run writes under its own prefix and deletes what it wrote.
            const prefix = Uint8Array.of(0x7e, keys.length);
            const scoped = (b: Uint8Array): Uint8Array => Buffer.concat([prefix, b]);
            const entries = keys.map((k, i): [Uint8Array, Uint8Array] => [scoped(k), Uint8Array.of(i)]);
            await putAll(oracle, entries);
            await putAll(storage, entries);
            const range: IterateOptions = {
              gte: gte === null ? prefix : scoped(gte),
              lt: lt === null ? Uint8Array.of(0x7e, keys.length + 1) : scoped(lt),
              reverse,
              ...(limit === null ? {} : { limit }),
            };
            assert.deepEqual(await entriesOf(storage, range), await entriesOf(oracle, range));
            const probe = [...keys.slice(0, 3).map(scoped), scoped(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))];
            assert.deepEqual(hexOrNull(await storage.getMany(probe)), hexOrNull(await oracle.getMany(probe)));
            await putAll(oracle, entries, 'del');
            await putAll(storage, entries, 'del');
          },
        ),
        fcParams(options),
      );
    } finally {
      await oracle.close();
    }
  });
}
