import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Kafka, logLevel, type ISocketFactory } from 'kafkajs';
import { connectUpstream } from './tcp-proxy';

/** Kafka's Produce request (api key 0). */
const PRODUCE = 0;

/**
 * Splits a byte stream into Kafka frames (a 4-byte big-endian size, then that many bytes) and hands each
 * whole frame on.
 */
class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (frame: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) return;
      this.onFrame(this.buffered.subarray(0, 4 + size));
      this.buffered = this.buffered.subarray(4 + size);
    }
  }
}

/**
 * A loopback proxy in front of a real Kafka broker that can lose the broker's answers to Produce
 * requests while every request still reaches the broker: what a client sees when the broker appends a
 * batch and then stops, is killed, or answers after the request timed out. Every other answer (metadata,
 * transactions, fetches, heartbeats) passes, so only the produce outcome is unknown to the client.
 *
 * It reads the Kafka framing (size, then for a request: api key, api version, correlation id; for an
 * answer: correlation id) to know which answers belong to Produce requests. `client()` gives a kafkajs
 * client that reaches every broker through it (whatever addresses the broker advertises).
 */
export class KafkaAnswerProxy {
  /** While true, the answers to Produce requests are dropped. */
  dropProduceAnswers = false;
  /** Produce answers dropped so far. */
  dropped = 0;
  private server: Server | undefined;
  private port = 0;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly brokerHost: string,
    private readonly brokerPort: number,
  ) {}

  /** In front of the first broker of a bootstrap list (`host:port,...`). */
  static inFrontOf(brokers: string): KafkaAnswerProxy {
    const [host, port] = brokers.split(',')[0]!.split(':');
    return new KafkaAnswerProxy(host!, Number(port));
  }

  /**
   * A kafkajs client whose every connection goes through the proxy, with a short request timeout and few
   * retries: a call whose answers are dropped fails within seconds.
   */
  client(clientId: string): Kafka {
    return new Kafka({
      clientId,
      brokers: [`127.0.0.1:${this.brokerPort}`],
      logLevel: logLevel.NOTHING,
      requestTimeout: 1500,
      retry: { initialRetryTime: 100, retries: 2, maxRetryTime: 500 },
      socketFactory: this.socketFactory(),
    });
  }

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connectUpstream(
        client,
        { host: this.brokerHost, port: this.brokerPort },
        this.sockets,
      );
      /** Correlation ids of this connection's Produce requests still awaiting their answer. */
      const produces = new Set<number>();
      const requests = new FrameReader((frame) => {
        if (frame.length >= 12 && frame.readInt16BE(4) === PRODUCE) produces.add(frame.readInt32BE(8));
        upstream.write(frame);
      });
      const answers = new FrameReader((frame) => {
        const correlationId = frame.readInt32BE(4);
        if (produces.delete(correlationId) && this.dropProduceAnswers) {
          this.dropped += 1;
          return;
        }
        client.write(frame);
      });
      client.on('data', (chunk: Buffer) => requests.push(chunk));
      upstream.on('data', (chunk: Buffer) => answers.push(chunk));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Every connection of a client made with it goes through the proxy. */
  private socketFactory(): ISocketFactory {
    return ({ onConnect }) => connect(this.port, '127.0.0.1', onConnect);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
