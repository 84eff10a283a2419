/**
 * The settings every connection of a store starts with (README "Timeouts"), so that a stalled
 * or cut-off peer costs a bounded wait, never an unbounded one:
 *
 * - `lock_timeout`: a writer waits at most this long for the store's advisory lock (then the
 *   adapter fails the write with `STORE_UNAVAILABLE { outcome: 'not-sent', holderPid }`);
 * - `idle_in_transaction_session_timeout`: PostgreSQL ends a session that sits idle inside a
 *   transaction this long (a frozen holder of the store's lock: SIGSTOP, a VM pause, a
 *   debugger, a half-open connection), which releases the lock for the writers behind it;
 * - `statement_timeout`: no statement of the store runs longer;
 * - TCP keepalive, so a connection whose peer vanished is found without a query, and an
 *   `application_name` naming the store's schema, so `pg_stat_activity` shows whose it is.
 *
 * Named locks (`Storage.lock`) wait for as long as their holder keeps them, by contract: their
 * connections get no lock or statement timeout.
 */
import type { ClientConfig } from 'pg';
import { StateflowError } from '@stateflow/core';

/** The bounds of a store's waits, in milliseconds (each ≥ 1; see the module header). */
export interface PostgresTimeouts {
  /** Longest wait of a writer for the store's lock (default {@link DEFAULT_TIMEOUTS}: 5 000 ms). */
  lockTimeoutMs?: number;
  /** Longest a session may sit idle inside a transaction before PostgreSQL ends it (default 10 000 ms). */
  idleInTransactionTimeoutMs?: number;
  /** Longest a single statement may run (default 30 000 ms). */
  statementTimeoutMs?: number;
}

/** The defaults of {@link PostgresTimeouts}: the lock wait is shorter than the idle cut-off, so writers behind a frozen holder fail fast and typed until PostgreSQL ends it. */
export const DEFAULT_TIMEOUTS: Readonly<Required<PostgresTimeouts>> = Object.freeze({ lockTimeoutMs: 5_000, idleInTransactionTimeoutMs: 10_000, statementTimeoutMs: 30_000 });

/** First keepalive probe after this long without traffic, in ms. */
const KEEPALIVE_MS = 10_000;

/**
 * The timeouts with defaults filled in.
 * @throws INPUT_INVALID for a value that is not an integer ≥ 1
 */
export function resolveTimeouts(timeouts: PostgresTimeouts = {}): Required<PostgresTimeouts> {
  const resolved = { ...DEFAULT_TIMEOUTS };
  for (const field of Object.keys(DEFAULT_TIMEOUTS) as (keyof PostgresTimeouts)[]) {
    const value = timeouts[field];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new StateflowError('INPUT_INVALID', `${field} must be an integer number of milliseconds ≥ 1, got ${String(value)}`, { field });
    }
    resolved[field] = value;
  }
  return resolved;
}

/**
 * The `pg` configuration of a connection of the store at `target`: the store's sessions
 * (`'store'`: reads, writes, the listener, schema work) carry every timeout; named locks'
 * (`'named-lock'`) only the idle cut-off.
 */
export function sessionConfig(target: { connectionString: string; schema: string }, timeouts: Required<PostgresTimeouts>, purpose: 'store' | 'named-lock'): ClientConfig {
  return {
    connectionString: target.connectionString,
    application_name: `stateflow ${target.schema}`.slice(0, 63),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_MS,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
    ...(purpose === 'store' ? { lock_timeout: timeouts.lockTimeoutMs, statement_timeout: timeouts.statementTimeoutMs } : {}),
  };
}
