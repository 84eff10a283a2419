/**
 * A PostgreSQL primary and a hot standby streaming from it, made for a test in a temporary
 * folder (the machine's own cluster has no replication entry in `pg_hba.conf`): `initdb` a
 * primary on a free port, `pg_basebackup -R` a standby from it, start both with `pg_ctl`. The
 * binaries are those in `pg_config --bindir`; as root the clusters run as the `postgres` user
 * (PostgreSQL refuses to run as root). Where the binaries are absent the caller skips visibly
 * (under `CI=true` that is a failure, {@link unavailable}). Both clusters are stopped and the
 * folder removed by {@link PostgresPair.stop}, and at the latest when the process exits.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmod, chown, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { unavailable } from './environment.js';

const run = promisify(execFile);

/** A running primary + standby pair. */
export interface PostgresPair {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` of the primary (trust auth). */
  primaryUrl: string;
  /** The same of the standby (read-only; streams from the primary). */
  standbyUrl: string;
  /** Stop the standby at once (`pg_ctl stop -m immediate`), as a crashed or cut-off replica. */
  stopStandby(): Promise<void>;
  /** Start the stopped standby again; it resumes streaming. */
  startStandby(): Promise<void>;
  /** Stop both clusters and remove their folder. Never throws. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick, released for the cluster to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The folder of PostgreSQL's binaries, or `null` when `pg_config` is not installed. */
async function binaries(): Promise<string | null> {
  try {
    return (await run('pg_config', ['--bindir'])).stdout.trim();
  } catch {
    return null;
  }
}

/**
 * Make and start a primary + standby pair.
 * @returns the pair, or `{ unavailable }` (reported: a visible skip; under `CI=true` this throws)
 *   when PostgreSQL's server binaries are not on the machine
 * @throws when a cluster does not start (its log is in the message)
 */
export async function startPostgresPair(): Promise<PostgresPair | { unavailable: string }> {
  const bin = await binaries();
  if (bin === null) {
    const reason = 'PostgreSQL server binaries not found (pg_config --bindir); install postgresql to run the read-replica tests';
    unavailable(reason);
    return { unavailable: reason };
  }
  const root = await mkdtemp(path.join(tmpdir(), 'stateflow-pg-pair-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) await chown(root, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  await chmod(root, 0o700);
  // As root, every cluster command runs as the postgres user.
  const pg = (tool: string, args: string[]): Promise<unknown> => (asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args));
  const primary = path.join(root, 'primary');
  const standby = path.join(root, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const stopAll = async (): Promise<void> => {
    for (const dir of [...started].reverse()) await pg('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    started.length = 0;
    await rm(root, { recursive: true, force: true });
  };
  // A test process that ends without stop() must not leave clusters running.
  const onExit = (): void => {
    for (const dir of started) {
      try {
        execFileSync(asRoot ? 'runuser' : path.join(bin, 'pg_ctl'), [...(asRoot ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl')] : []), '-D', dir, '-m', 'immediate', 'stop'], { stdio: 'ignore' });
      } catch {
        // Already stopped.
      }
    }
  };
  process.once('exit', onExit);
  const start = async (dir: string, log: string): Promise<void> => {
    try {
      await pg('pg_ctl', ['-D', dir, '-l', path.join(root, log), '-w', '-t', '60', 'start']);
    } catch (err) {
      const text = await run('cat', [path.join(root, log)]).then((r) => r.stdout, () => '');
      throw new Error(`pg_ctl start ${dir} failed: ${(err as Error).message}\n${text}`);
    }
    if (!started.includes(dir)) started.push(dir);
  };
  try {
    await pg('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Loopback only, sockets in the folder (not the machine's /var/run/postgresql), replication allowed from loopback.
    const settings = [`port = ${primaryPort}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${root}'`, 'wal_level = replica', 'max_wal_senders = 4', 'hot_standby = on', 'fsync = off', ''];
    await appendFile(path.join(primary, 'postgresql.conf'), settings.join('\n'));
    await appendFile(path.join(primary, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await start(primary, 'primary.log');
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standby, '-R', '-X', 'stream', '--no-sync']);
    await appendFile(path.join(standby, 'postgresql.conf'), `port = ${standbyPort}\n`);
    await writeFile(path.join(root, 'README'), 'A PostgreSQL primary + standby made by @stateflow/test-kit for a test; remove it when no test runs.\n');
    await start(standby, 'standby.log');
  } catch (err) {
    await stopAll();
    process.removeListener('exit', onExit);
    throw err;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
    stopStandby: async () => {
      await pg('pg_ctl', ['-D', standby, '-m', 'immediate', '-w', 'stop']);
      started.splice(started.indexOf(standby), 1);
    },
    startStandby: () => start(standby, 'standby.log'),
    stop: async () => {
      await stopAll();
      process.removeListener('exit', onExit);
    },
  };
}
