/**
 * A TCP proxy in front of PostgreSQL that can drop connections, for the history check: a
 * dropped connection is a network failure, not a killed backend — the server may go on and
 * commit what it received (the client then cannot know: `STORE_UNAVAILABLE { outcome:
 * 'unknown' }`). Each client connection is piped to its own upstream connection; `drop()` ends
 * one pair at once, both ways (`resetAndDestroy`: an RST, as a network cut or a dead middlebox
 * gives).
 */
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * PostgreSQL's ErrorResponse of `pg_terminate_backend` (SQLSTATE 57P01, FATAL): what a backend
 * sends before it closes a connection it was told to end.
 */
function terminatingMessage(): Buffer {
  const fields = Buffer.concat([...['SFATAL', 'VFATAL', 'C57P01', 'Mterminating connection due to administrator command'].map((f) => Buffer.from(`${f}\0`)), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** ReadyForQuery ('Z', length 5): the last message of a connection's startup. */
const READY = Buffer.from([0x5a, 0, 0, 0, 5]);

/** A running proxy. */
export interface TcpProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Connections open through it now. */
  readonly open: number;
  /** Cut the `pick(n)`-th of the `n` open connections (none open: nothing); returns whether one was cut. */
  drop(pick: (n: number) => number): boolean;
  /**
   * End the next new connection the moment its startup completes: its ReadyForQuery and the
   * server's FATAL 57P01 reach the client in one packet, then the connection closes (a backend
   * killed just as a pool hands the connection out).
   */
  endNextAtStartup(): void;
  close(): Promise<void>;
}

/** Start a proxy on a free port of 127.0.0.1 to `host:port`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let endAtStartup = false;
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.pipe(upstream);
    if (!endAtStartup) {
      upstream.pipe(client);
      return;
    }
    endAtStartup = false;
    upstream.on('data', (chunk: Buffer) => {
      const at = chunk.indexOf(READY);
      if (at < 0) return void client.write(chunk);
      client.end(Buffer.concat([chunk.subarray(0, at + READY.length + 1), terminatingMessage()]));
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');
  return {
    port: address.port,
    get open() {
      return pairs.size;
    },
    drop(pick) {
      const all = [...pairs];
      const pair = all[pick(all.length)];
      if (pair === undefined) return false;
      pairs.delete(pair);
      for (const socket of pair) socket.resetAndDestroy();
      return true;
    },
    endNextAtStartup() {
      endAtStartup = true;
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
