/**
 * A storage's capability manifest (README "Storage seam"): the one record of what a storage can
 * do — its four flags (`capabilities`) and, for each optional member of the seam, whether it
 * implements it. The store reads the same facts (a flag, or whether a member is there); the
 * conformance suite registers its tests from a manifest its initializer declares, and checks
 * every storage the initializer makes against it.
 */
import type { Storage, StorageCapabilities } from './storage.js';

/** The optional members of {@link Storage}: implementing one is declaring the capability it names. */
export const OPTIONAL_STORAGE_MEMBERS = ['getSync', 'readRanges', 'commitIf', 'onCommit', 'lock', 'replicas', 'connections', 'repairs'] as const satisfies readonly (keyof Storage)[];

/** One of {@link OPTIONAL_STORAGE_MEMBERS}. */
export type OptionalStorageMember = (typeof OPTIONAL_STORAGE_MEMBERS)[number];

/**
 * The capability manifest: every flag of {@link StorageCapabilities}, and `true` for each
 * optional member the storage implements — `getSync` (synchronous point reads), `readRanges`
 * (several range reads in one round trip), `commitIf`
 * (one-round-trip conditional commits), `onCommit` (notifications of other processes' commits),
 * `lock` (named locks across processes), `replicas` (read replicas: `true` when it has at least
 * one, since a storage opened without any has the member, empty), `connections` (pool use),
 * `repairs` (what an open repaired in place).
 */
export type StorageManifest = StorageCapabilities & { readonly [M in OptionalStorageMember]: boolean };

/** The manifest of `storage`: its flags, and which optional members it has. */
export function storageManifest(storage: Storage): StorageManifest {
  const { persistent, fsync, soleWriter, reopenAfterFailedWrite } = storage.capabilities;
  const members = Object.fromEntries(OPTIONAL_STORAGE_MEMBERS.map((member) => [member, storage[member] !== undefined])) as Record<OptionalStorageMember, boolean>;
  return { persistent, fsync, soleWriter, reopenAfterFailedWrite, ...members, replicas: (storage.replicas?.length ?? 0) > 0 };
}
