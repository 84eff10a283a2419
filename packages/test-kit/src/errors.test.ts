import { describe, expect, it } from 'vitest';
import { asStateflowError, errorOf, failureOf, isCaughtError, rejected, rejectionOf, thrown } from './errors.js';

/**
 * An error of the shape of core's StateflowError (the kit cannot import core, whose own tests
 * use the kit; they feed it core's real errors).
 */
class StateflowError extends Error {
  override readonly name = 'StateflowError';
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

const conflict = () => new StateflowError('CONFLICT', 'stale', { stream: 'global', expected: 1, actual: 2 });

describe('catching errors', () => {
  it('returns what was thrown or rejected, and fails when nothing was', async () => {
    const boom = new Error('boom');
    expect(
      thrown(() => {
        throw boom;
      }),
    ).toBe(boom);
    expect(() => thrown(() => 1)).toThrow('expected the call to throw');
    expect(await rejected(Promise.reject(boom))).toBe(boom);
    expect(
      await rejected(() => {
        throw boom;
      }),
    ).toBe(boom);
    await expect(rejected(Promise.resolve(1))).rejects.toThrow('expected the call to reject');
  });

  it("recognises a StateflowError (and subclasses) by shape, not Node's errno errors", () => {
    class Sub extends StateflowError {}
    expect(isCaughtError(conflict())).toBe(true);
    expect(isCaughtError(new Sub('CONFLICT', 'x', { stream: 's', expected: 'none', actual: 1 }))).toBe(true);
    const errno = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    expect(isCaughtError(errno)).toBe(false);
    expect(isCaughtError({ code: 'CONFLICT', details: {} })).toBe(false);
  });

  it('errorOf / rejectionOf check the code and rethrow a foreign error as it was', async () => {
    expect(errorOf(() => {
      throw conflict();
    }, 'CONFLICT').details).toEqual({ stream: 'global', expected: 1, actual: 2 });
    expect(() =>
      errorOf(() => {
        throw conflict();
      }, 'NOT_FOUND'),
    ).toThrow('expected a StateflowError NOT_FOUND, got CONFLICT: stale');
    const foreign = new TypeError('x is not a function');
    await expect(rejectionOf(Promise.reject(foreign))).rejects.toBe(foreign);
    expect(() => asStateflowError(foreign)).toThrow(foreign);
    expect((await rejectionOf(() => Promise.reject(conflict()))).code).toBe('CONFLICT');
  });

  it('failureOf gives the code and details as a plain object', async () => {
    expect(await failureOf(Promise.reject(conflict()))).toEqual({ code: 'CONFLICT', details: { stream: 'global', expected: 1, actual: 2 } });
  });
});
