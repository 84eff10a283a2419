/**
 * Why a server could not listen, as a USAGE error that says what to do: for a port in use
 * (`EADDRINUSE`), which process holds it when `/proc` tells, and how to pick another; otherwise
 * the system's reason (`EACCES` for a privileged port, `EADDRNOTAVAIL` for an address of another
 * machine).
 */
import { StateflowError } from '@stateflow/core';
import { findPortHolder } from './port-holder.js';

/** The USAGE error for a failed listen on `host:port` (`details.at`; `reason: 'port-in-use'` or the `errno`). */
export async function listenError(host: string, port: number, cause: unknown): Promise<StateflowError<'USAGE'>> {
  const at = `${host}:${port}`;
  const errno = (cause as NodeJS.ErrnoException | null)?.code;
  if (errno !== 'EADDRINUSE') {
    const why = cause instanceof Error ? cause.message : String(cause);
    return new StateflowError('USAGE', `Cannot listen on ${at} (${why}): pick another host or port.`, { at, ...(typeof errno === 'string' ? { errno } : {}) }, { cause });
  }
  const holder = await findPortHolder(port);
  const by =
    holder === null
      ? ''
      : holder.pid === undefined
        ? ` by a process of another user (uid ${holder.uid})`
        : ` by pid ${holder.pid}${holder.command === undefined ? '' : ` (${holder.command})`}`;
  return new StateflowError(
    'USAGE',
    `Cannot listen on ${at}: the port is in use${by}. Pick another port with --port N, or --port 0 for a free one (the banner prints the port chosen).`,
    { at, reason: 'port-in-use' },
    { cause },
  );
}
