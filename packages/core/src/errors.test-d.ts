/**
 * Compile-time tests of the error model (vitest typecheck: a type error fails `npm test`):
 * `StateflowError` is a union over the codes that `switch (err.code)` narrows, every code's
 * details are typed and required, and a wrong field does not compile.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { ERROR_FACTS, StateflowError, isStateflowError } from './index.js';
import type { ErrorCode, PatchInvalidReason } from './index.js';

/** What a caller does with a caught error: switch on its code and read typed details. */
function recover(err: unknown): number | string {
  if (!isStateflowError(err)) return 'not ours';
  switch (err.code) {
    case 'CONFLICT':
      expectTypeOf(err.details.actual).toEqualTypeOf<number>();
      expectTypeOf(err.details.expected).toEqualTypeOf<number | 'none' | 'any'>();
      // @ts-expect-error -- a CONFLICT carries no `head`
      return err.details.head;
    case 'REVISION_NOT_FOUND':
      return err.details.head;
    case 'PATH_SYNTAX':
      // @ts-expect-error -- `column` is a number, not a string
      err.details.column satisfies string;
      return err.details.column;
    case 'PATCH_INVALID':
      expectTypeOf(err.details.reason).toEqualTypeOf<PatchInvalidReason>();
      expectTypeOf(err.details.at).toEqualTypeOf<string>();
      return err.details.at;
    case 'STORE_CORRUPT':
      expectTypeOf(err.details.detail).toEqualTypeOf<string>();
      return err.details.offset ?? err.details.detail;
    default:
      return err.code;
  }
}

describe('the error model, at compile time', () => {
  it('narrows details by code', () => {
    expectTypeOf(recover).returns.toEqualTypeOf<number | string>();
    const err: unknown = new StateflowError('CONFLICT', 'stale', { stream: 'global', expected: 1, actual: 2 });
    if (err instanceof StateflowError && err.code === 'HISTORY_NOT_RETAINED') expectTypeOf(err.details.origin).toEqualTypeOf<number>();
    if (isStateflowError(err, 'STORE_LOCKED', 'STORE_IO')) expectTypeOf(err.code).toEqualTypeOf<'STORE_LOCKED' | 'STORE_IO'>();
  });

  it('requires each code its own details', () => {
    // @ts-expect-error -- details are required
    new StateflowError('CONFLICT', 'stale');
    // @ts-expect-error -- a CONFLICT needs `actual`
    new StateflowError('CONFLICT', 'stale', { stream: 'global', expected: 1 });
    // @ts-expect-error -- `rev` is not a field of TRANSITION_NOT_FOUND
    new StateflowError('TRANSITION_NOT_FOUND', 'no', { seq: 3, lastSeq: 2, rev: 1 });
    // @ts-expect-error -- a PATCH_INVALID reason is a known slug
    new StateflowError('PATCH_INVALID', 'bad', { reason: 'whatever', at: '' });
    new StateflowError('STORE_CLOSED', 'closed', {});
  });

  it('has one row of facts per code', () => {
    expectTypeOf<keyof typeof ERROR_FACTS>().toEqualTypeOf<ErrorCode>();
    expectTypeOf(ERROR_FACTS.CONFLICT.retryable).toEqualTypeOf<boolean>();
  });
});
