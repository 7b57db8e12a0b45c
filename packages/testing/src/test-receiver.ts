import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: Buffer;
  path: string;
  at: number;
}

export type ReceiverMode =
  | { kind: 'ok' }
  | { kind: 'fail'; status: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'random-500'; rate: number };

/** A real HTTP callback receiver for tests: records every delivery and answers as its mode says. */
export class TestReceiver {
  readonly received: ReceivedCallback[] = [];
  readonly accepted: ReceivedCallback[] = [];
  mode: ReceiverMode = { kind: 'ok' };
  private server: Server | undefined;

  async start(port: number): Promise<number> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const cb = { headers: req.headers, body: Buffer.concat(chunks), path: req.url ?? '', at: Date.now() };
        this.received.push(cb);
        const mode = this.mode;
        const answer = (status: number) => {
          if (status >= 200 && status < 300) this.accepted.push(cb);
          res.writeHead(status).end();
        };
        if (mode.kind === 'fail') answer(mode.status);
        else if (mode.kind === 'slow') setTimeout(() => answer(204), mode.delayMs);
        else if (mode.kind === 'random-500') answer(Math.random() < mode.rate ? 500 : 204);
        else answer(204);
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', resolve);
    });
    return (this.server.address() as AddressInfo).port;
  }

  acceptedFor(source: string): ReceivedCallback[] {
    return this.accepted.filter((c) => c.headers['ce-source'] === source);
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
