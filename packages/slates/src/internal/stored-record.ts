/**
 * Decoding of what slates read back from the store: session records, a paused call's execution
 * state, slate stream states (DESIGN.md "Fail closed": a record that does not decode makes the
 * load fail with a typed error naming the stream, and nothing is rewritten). The store
 * guarantees every state is JSON; what is checked here is that it has the layout slates wrote —
 * a record changed by hand, by an older build or by damage fails here instead of being read as
 * something it is not.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import type { Static, TSchema } from '@sinclair/typebox';
import { StateflowError, elidePath } from '@stateflow/core';

/** A compiled check of one record layout, and what the record is called in an error. */
export interface RecordDecoder<T extends TSchema> {
  check: TypeCheck<T>;
  /** `session record`, `slate stream state`, … */
  what: string;
}

/** Compile `schema` once, for {@link decodeStored}. */
export function recordDecoder<T extends TSchema>(schema: T, what: string): RecordDecoder<T> {
  return { check: TypeCompiler.Compile(schema), what };
}

/**
 * `value`, read from `stream`, as the layout `decoder` checks.
 * @throws STORE_CORRUPT `{ detail, stream }` naming the first member at fault and what is
 *   wrong with it (`session record does not decode: /status: Expected union value (found "bogus")`).
 */
export function decodeStored<T extends TSchema>(decoder: RecordDecoder<T>, value: unknown, stream: string): Static<T> {
  if (decoder.check.Check(value)) return value;
  const first = decoder.check.Errors(value).First();
  const found = first === undefined || typeof first.value === 'object' ? '' : ` (found ${elidePath(JSON.stringify(first.value) ?? String(first.value))})`;
  const detail = `${decoder.what} does not decode: ${first === undefined ? 'not the layout slates write' : `${first.path === '' ? '/' : first.path}: ${first.message}${found}`}`;
  return corrupt(stream, detail);
}

function corrupt(stream: string, detail: string): never {
  throw new StateflowError('STORE_CORRUPT', `Stream "${elidePath(stream)}": the stored ${detail}; nothing was changed. Restore the stream from a backup, or revert it to a revision that decodes.`, { detail, stream });
}
