/**
 * Which process listens on a TCP port, for the error of a server that cannot listen there
 * (`EADDRINUSE`). Linux only, from `/proc`: the listening socket's inode and owner in
 * `/proc/net/tcp` and `/proc/net/tcp6`, then the process whose `/proc/<pid>/fd` links to that
 * socket, and its command line. Another user's processes do not show their descriptors, so for
 * them only the owner's uid is known. Anywhere else, or when nothing matches, the answer is
 * `null` and the error says only that the port is in use.
 */
import { readFile, readdir, readlink } from 'node:fs/promises';

/** The process that holds a port, as far as `/proc` tells. */
export interface PortHolder {
  /** The socket owner's user id. */
  uid: number;
  /** The process id, when its descriptors are readable (one's own processes). */
  pid?: number;
  /** Its command line, words joined with spaces (at most 160 characters). */
  command?: string;
}

/** `st` of a listening socket in `/proc/net/tcp*` (`TCP_LISTEN`). */
const LISTEN = '0A';
/** Longest command line quoted in a message. */
const COMMAND_MAX = 160;

/** The holder of the socket listening on `port`, or `null` when `/proc` does not tell. */
export async function findPortHolder(port: number): Promise<PortHolder | null> {
  const socket = await listeningSocket(port);
  if (socket === null) return null;
  const pid = await socketOwnerPid(socket.inode);
  if (pid === null) return { uid: socket.uid };
  const command = await commandLine(pid);
  return command === null ? { uid: socket.uid, pid } : { uid: socket.uid, pid, command };
}

async function listeningSocket(port: number): Promise<{ inode: string; uid: number } | null> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    // Columns: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === LISTEN && cols[1]?.endsWith(`:${hexPort}`) && cols[7] !== undefined && cols[9] !== undefined) {
        return { inode: cols[9], uid: Number(cols[7]) };
      }
    }
  }
  return null;
}

async function socketOwnerPid(inode: string): Promise<number | null> {
  const target = `socket:[${inode}]`;
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === target) return Number(pid);
    }
  }
  return null;
}

async function commandLine(pid: number): Promise<string | null> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const words = raw.split('\0').filter((word) => word !== '');
  if (words.length === 0) return null;
  const text = words.join(' ');
  return text.length <= COMMAND_MAX ? text : `${text.slice(0, COMMAND_MAX - 1)}…`;
}
