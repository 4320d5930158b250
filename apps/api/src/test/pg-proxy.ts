import net from 'node:net';

// A TCP proxy in front of PostgreSQL that can lose the answer to a COMMIT: the COMMIT reaches
// the server (which commits), then the client's connection is cut before the reply arrives.
// This is the "outcome unknown" case of rule S5, produced by a real network fault.

export interface PgProxy {
  url(target: string): string;
  /** The next COMMIT on any connection is forwarded, then the client connection is destroyed. */
  loseNextCommitReply(): void;
  close(): Promise<void>;
}

const COMMIT = Buffer.from('COMMIT\0');

export async function startPgProxy(target: string): Promise<PgProxy> {
  const t = new URL(target);
  let armed = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    // The embedded database listens on a Unix socket only (P8): `?host=/folder` names its folder.
    const socketDir = t.searchParams.get('host');
    const upstream = socketDir ? net.connect(`${socketDir}/.s.PGSQL.${t.port || 5432}`) : net.connect(Number(t.port || 5432), t.hostname);
    sockets.add(client).add(upstream);
    let cut = false;
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk[0] === 0x51 /* 'Q' */ && chunk.subarray(5).indexOf(COMMIT) === 0) {
        armed = false;
        cut = true;
        upstream.write(chunk);
        // Give the server time to commit, then drop the client before relaying the reply.
        setTimeout(() => client.destroy(), 50);
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url(targetUrl) {
      const u = new URL(targetUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.searchParams.delete('host');
      return u.toString();
    },
    loseNextCommitReply() {
      armed = true;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
