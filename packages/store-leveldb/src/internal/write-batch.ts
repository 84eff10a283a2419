/**
 * LevelDB's WriteBatch encoding (leveldb `db/write_batch.cc`): each logical record of the
 * write-ahead log is one batch — `sequence u64le | count u32le` then `count` operations, a put
 * (`0x01`, length-prefixed key, length-prefixed value) or a delete (`0x00`, length-prefixed key).
 * Stateflow decodes batches only to read what a log holds (which transitions, whether synced:
 * `crash-policy.ts`), never to apply them.
 */

/** One put of a batch. */
export interface BatchPut {
  key: Uint8Array;
  value: Uint8Array;
}

/**
 * The puts of one batch, in order.
 * @throws Error when the record is not a well-formed batch
 */
export function batchPuts(record: Uint8Array): BatchPut[] {
  if (record.length < 12) throw new Error('write batch shorter than its 12-byte header');
  const count = new DataView(record.buffer, record.byteOffset, record.byteLength).getUint32(8, true);
  const puts: BatchPut[] = [];
  let pos = 12;
  const slice = (): Uint8Array => {
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = record[pos++];
      if (byte === undefined || shift > 28) throw new Error('bad length prefix in write batch');
      length |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
    }
    if (pos + length > record.length) throw new Error('write batch entry runs past the end of the record');
    const bytes = record.subarray(pos, pos + length);
    pos += length;
    return bytes;
  };
  for (let i = 0; i < count; i++) {
    const tag = record[pos++];
    if (tag === 0x01) {
      const key = slice();
      puts.push({ key, value: slice() });
    } else if (tag === 0x00) slice();
    else throw new Error(`unknown write batch tag ${String(tag)}`);
  }
  return puts;
}

/**
 * A batch's header: LevelDB's sequence number of its first operation and how many it holds (a
 * batch continues its log where the one before ended: `sequence` = the previous batch's
 * `sequence + count`).
 * @throws Error when the record is shorter than the 12-byte header
 */
export function batchHeader(record: Uint8Array): { sequence: number; count: number } {
  if (record.length < 12) throw new Error('write batch shorter than its 12-byte header');
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  return { sequence: Number(view.getBigUint64(0, true)), count: view.getUint32(8, true) };
}
