import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Endpoint } from './stack-env';

/**
 * A loopback TCP proxy in front of a real server, on TCP or a Unix socket (the local stack's store:
 * decision 0082), that a test can cut and restore, to give one client an outage of the real store while
 * the store itself keeps serving the other tests. Cut: every open connection is destroyed and new ones are
 * closed as soon as they are accepted. Freeze: every connection stays open but nothing passes either way
 * (a store that stops reading and answering, a network stall) until `thaw`.
 * (Toxiproxy does this as a separate server; one socket pipe is all these tests need.)
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private cutOff = false;
  private frozen = false;

  constructor(private readonly target: Endpoint) {}

  /** Starts listening on a free loopback port; returns "127.0.0.1:port". */
  async start(): Promise<string> {
    this.server = createServer((client) => {
      if (this.cutOff) {
        client.destroy();
        return;
      }
      const upstream = connectUpstream(client, this.target, this.sockets);
      const pair = { client, upstream };
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      if (this.frozen) client.pause();
      else client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  cut(): void {
    this.cutOff = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.cutOff = false;
  }

  /** Nothing passes on any connection, open or new, until `thaw`: the bytes wait in the sockets. */
  freeze(): void {
    this.frozen = true;
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    for (const { client, upstream } of this.pairs) client.pipe(upstream).pipe(client);
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * The upstream side of a proxied connection: both sockets tracked in `sockets` while open, and an error
 * on either side ends both.
 */
export function connectUpstream(client: Socket, target: Endpoint, sockets: Set<Socket>): Socket {
  const upstream = connect(target);
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
  }
  return upstream;
}
