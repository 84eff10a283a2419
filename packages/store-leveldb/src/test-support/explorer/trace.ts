/**
 * The crash-state explorer's recorder (README "Durability contract", "Every crash state"): runs a
 * workload child (`workload-child.mjs`) under `strace -f` and turns the trace into the ordered
 * file-system operations on the store's directory, with each acknowledgement of the workload's
 * ledger in its place among them. Buffers are traced in full (`-xx -s`), so every write's bytes
 * are known; a syscall strace splits into "unfinished" and "resumed" lines counts where it ends.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** One acknowledged transition, as the workload's ledger names it. */
export interface LedgerEntry {
  seq: number;
  hash: string;
  id: string;
  durability: 'fsync' | 'buffered';
}

/** A file-system operation on the store directory (`ino`: the file's identity across renames). */
export type FsOp =
  | { op: 'create'; name: string; ino: number }
  | { op: 'truncate'; ino: number; length: number }
  | { op: 'write'; ino: number; offset: number; data: Buffer }
  | { op: 'sync'; ino: number }
  | { op: 'syncdir' }
  | { op: 'rename'; from: string; to: string }
  | { op: 'unlink'; name: string }
  | { op: 'ack'; entry: LedgerEntry };

/** The strace binary (Debian's `strace`; `.ci/run` installs it). */
export const STRACE = '/usr/bin/strace';
/** Whether strace is installed here. */
export const haveStrace = (): boolean => existsSync(STRACE);

const CHILD = fileURLToPath(new URL('./workload-child.mjs', import.meta.url));
const SYSCALLS = 'openat,creat,write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,ftruncate,close';

/**
 * Run `workload` in a child under strace with its store in `root/db` and its ledger in
 * `root/ledger`; the operations on `root/db`, in the order they completed.
 * @throws when the child fails other than by the SIGKILL that ends a workload
 */
export async function traceWorkload(root: string, workload: string): Promise<FsOp[]> {
  await mkdir(root, { recursive: true });
  const db = path.join(root, 'db');
  const ledger = path.join(root, 'ledger');
  const out = path.join(root, 'trace');
  const args = ['-f', '-qq', '-xx', '-s', '10000000', '-o', out, '-e', `trace=${SYSCALLS}`, process.execPath, CHILD, db, ledger, workload];
  // The child writes on this machine's boot (the explorer's "same boot" opens read the kernel's id).
  const { STATEFLOW_BOOT_ID: _, ...env } = process.env;
  await promisify(execFile)(STRACE, args, { maxBuffer: 1 << 24, env }).catch((err: { signal?: string; stderr?: string; code?: number }) => {
    // strace exits with the child's signal as 128 + 9 after SIGKILL.
    if (err.code !== 137 && err.signal !== 'SIGKILL') throw new Error(`workload ${workload} failed: ${err.stderr ?? String(err)}`);
  });
  return parseTrace(await readFile(out, 'latin1'), db, ledger);
}

const HEX = /"((?:\\x[0-9a-f]{2})*)"/g;
const decode = (hex: string): Buffer => Buffer.from(hex.replaceAll('\\x', ''), 'hex');

/** One completed syscall: its name, its arguments (strings decoded) and its result. */
interface Call {
  name: string;
  args: (string | Buffer)[];
  ret: number;
}

/** Split strace's text into completed calls, joining "unfinished" and "resumed" halves per pid. */
function* calls(text: string): Generator<Call> {
  const pending = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(\d+) +(.*)$/.exec(line);
    if (m === null) continue;
    const [, pid = '', rest = ''] = m;
    let body = rest;
    if (body.endsWith(' <unfinished ...>')) {
      pending.set(pid, body.slice(0, -' <unfinished ...>'.length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(body);
    if (resumed !== null) {
      body = `${pending.get(pid) ?? ''}${resumed[1] ?? ''}`;
      pending.delete(pid);
    }
    const call = /^(\w+)\((.*)\)\s+= (-?\d+)/.exec(body);
    if (call === null) continue;
    const strings: Buffer[] = [];
    const argText = (call[2] ?? '').replace(HEX, (_, hex: string) => {
      strings.push(decode(hex));
      return `$${strings.length - 1}`;
    });
    const args = argText.split(', ').map((a) => (/^\$\d+$/.test(a) ? (strings[Number(a.slice(1))] as Buffer) : a));
    yield { name: call[1] ?? '', args, ret: Number(call[3]) };
  }
}

/** Turn a trace into the operations on `db` and the ledger's acknowledgements. */
export function parseTrace(text: string, db: string, ledger: string): FsOp[] {
  const ops: FsOp[] = [];
  const prefix = `${db}/`;
  const names = new Map<string, number>(); // name in db → ino
  const fds = new Map<number, { ino: number; offset: number } | 'dir' | 'ledger'>();
  let nextIno = 1;
  let ledgerText = '';
  const nameOf = (p: string | Buffer | undefined): string | null => {
    const s = typeof p === 'string' ? p : p?.toString('latin1');
    return s?.startsWith(prefix) === true ? s.slice(prefix.length) : null;
  };
  for (const { name, args, ret } of calls(text)) {
    if (ret < 0) continue;
    const fd = Number(args[0]);
    const file = fds.get(fd);
    switch (name) {
      case 'openat': {
        const p = args[1];
        const flags = String(args[2]);
        const full = typeof p === 'string' ? p : p?.toString('latin1');
        if (full === db) fds.set(ret, 'dir');
        else if (full === ledger) fds.set(ret, 'ledger');
        else {
          const n = nameOf(p);
          if (n === null) {
            fds.delete(ret);
            break;
          }
          let ino = names.get(n);
          if (ino === undefined) {
            ino = nextIno++;
            names.set(n, ino);
            ops.push({ op: 'create', name: n, ino });
          } else if (flags.includes('O_TRUNC')) ops.push({ op: 'truncate', ino, length: 0 });
          fds.set(ret, { ino, offset: 0 });
        }
        break;
      }
      case 'write':
      case 'pwrite64': {
        const data = (args[1] as Buffer).subarray(0, ret);
        if (file === 'ledger') {
          ledgerText += data.toString('utf8');
          for (let nl = ledgerText.indexOf('\n'); nl >= 0; nl = ledgerText.indexOf('\n')) {
            ops.push({ op: 'ack', entry: JSON.parse(ledgerText.slice(0, nl)) as LedgerEntry });
            ledgerText = ledgerText.slice(nl + 1);
          }
        } else if (file !== undefined && file !== 'dir') {
          const offset = name === 'pwrite64' ? Number(args[3]) : file.offset;
          ops.push({ op: 'write', ino: file.ino, offset, data });
          if (name === 'write') file.offset += ret;
        }
        break;
      }
      case 'writev':
        if (file !== undefined && file !== 'dir' && file !== 'ledger') throw new Error('writev on a store file: not modelled');
        break;
      case 'fsync':
      case 'fdatasync':
        if (file === 'dir') ops.push({ op: 'syncdir' });
        else if (file !== undefined && file !== 'ledger') ops.push({ op: 'sync', ino: file.ino });
        break;
      case 'ftruncate':
        if (file !== undefined && file !== 'dir' && file !== 'ledger') ops.push({ op: 'truncate', ino: file.ino, length: Number(args[1]) });
        break;
      case 'close':
        fds.delete(fd);
        break;
      case 'rename':
      case 'renameat':
      case 'renameat2': {
        const [from, to] = name === 'rename' ? [nameOf(args[0]), nameOf(args[1])] : [nameOf(args[1]), nameOf(args[3])];
        if (from === null || to === null) break;
        const ino = names.get(from);
        names.delete(from);
        if (ino !== undefined) names.set(to, ino);
        ops.push({ op: 'rename', from, to });
        break;
      }
      case 'unlink':
      case 'unlinkat': {
        const n = nameOf(name === 'unlink' ? args[0] : args[1]);
        if (n === null) break;
        names.delete(n);
        ops.push({ op: 'unlink', name: n });
        break;
      }
      default:
    }
  }
  return ops;
}
