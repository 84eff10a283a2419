/**
 * LevelDB's MANIFEST, read by Stateflow before LevelDB opens a store (README "The files are
 * checked before LevelDB opens them"). The MANIFEST is a log-format file of VersionEdits (leveldb `db/version_edit.cc`); folding them in
 * order gives the database's current version: which write-ahead logs recovery will replay (the
 * log number, and the previous log number while a memtable was being flushed) and which table
 * files hold the data, with their exact sizes. Only the fields Stateflow checks are kept.
 */

/** The database version a MANIFEST describes. */
export interface ManifestVersion {
  /** Logs numbered ≥ this are replayed on open (0: none yet). */
  logNumber: number;
  /** A log being flushed when the MANIFEST was written (0: none); replayed too. */
  prevLogNumber: number;
  /** Live table files: file number → size in bytes. */
  tables: Map<number, number>;
}

const Tag = {
  comparator: 1,
  logNumber: 2,
  nextFileNumber: 3,
  lastSequence: 4,
  compactPointer: 5,
  deletedFile: 6,
  newFile: 7,
  prevLogNumber: 9,
} as const;

/** A cursor over one VersionEdit's bytes. @throws Error on bytes that end early or overflow. */
class Cursor {
  #pos = 0;
  constructor(readonly bytes: Uint8Array) {}
  get done(): boolean {
    return this.#pos >= this.bytes.length;
  }
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let shift = 0; shift < 64; shift += 7) {
      const byte = this.bytes[this.#pos++];
      if (byte === undefined) throw new Error('varint runs past the end of the record');
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) {
        if (!Number.isSafeInteger(result)) throw new Error('varint beyond 2^53');
        return result;
      }
      scale *= 128;
    }
    throw new Error('varint longer than 10 bytes');
  }
  skipSlice(): void {
    const length = this.varint();
    if (this.#pos + length > this.bytes.length) throw new Error('length-prefixed field runs past the end of the record');
    this.#pos += length;
  }
}

/**
 * Fold the VersionEdit records of a MANIFEST (its logical records, in order) into the version
 * they describe.
 * @throws Error naming the record index when a record does not decode as a VersionEdit; the
 *   caller reports it as damage to the MANIFEST.
 */
export function foldManifest(records: Uint8Array[]): ManifestVersion {
  const version: ManifestVersion = { logNumber: 0, prevLogNumber: 0, tables: new Map() };
  records.forEach((record, index) => {
    try {
      applyEdit(version, new Cursor(record));
    } catch (err) {
      throw new Error(`VersionEdit ${index} does not decode: ${(err as Error).message}`);
    }
  });
  return version;
}

function applyEdit(version: ManifestVersion, c: Cursor): void {
  while (!c.done) {
    const tag = c.varint();
    switch (tag) {
      case Tag.comparator:
        c.skipSlice();
        break;
      case Tag.logNumber:
        version.logNumber = c.varint();
        break;
      case Tag.prevLogNumber:
        version.prevLogNumber = c.varint();
        break;
      case Tag.nextFileNumber:
      case Tag.lastSequence:
        c.varint();
        break;
      case Tag.compactPointer:
        c.varint();
        c.skipSlice();
        break;
      case Tag.deletedFile: {
        c.varint();
        version.tables.delete(c.varint());
        break;
      }
      case Tag.newFile: {
        c.varint();
        const number = c.varint();
        const size = c.varint();
        c.skipSlice();
        c.skipSlice();
        version.tables.set(number, size);
        break;
      }
      default:
        throw new Error(`unknown tag ${tag}`);
    }
  }
}
