import { createLogger, createMetricsRegistry } from '@crs/runtime';
import {
  AtLeastOnceConsumer,
  MessageSerde,
  createKafka,
  topicNames,
  type Messaging,
  type TransactionalProcessorOptions,
} from '@crs/messaging';
import { ServiceHost, type HostedPart, type HostSettings, type Listener } from './service-host';
import { hostMessaging } from './host-messaging';

const config: HostSettings = {
  HEALTH_PORT: 0,
  HEALTH_HOST: '127.0.0.1',
  KAFKA_BROKERS: '127.0.0.1:1',
  KAFKA_SSL: false,
  KAFKA_SASL_MECHANISM: '',
  KAFKA_SASL_USERNAME: '',
  KAFKA_SASL_PASSWORD: '',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
  SCHEMA_REGISTRY_USERNAME: '',
  SCHEMA_REGISTRY_PASSWORD: '',
  TOPIC_PREFIX: '',
  TOPIC_PARTITIONS: 1,
  TOPIC_REPLICATION_FACTOR: 1,
};
const logger = createLogger('host-test', 'silent');

/** A part that writes what happens to it into `log`. */
class Part implements HostedPart {
  ready = true;
  stops = 0;
  constructor(
    private readonly name: string,
    private readonly log: string[],
    private readonly failStart = false,
  ) {}
  async start() {
    this.log.push(`start ${this.name}`);
    if (this.failStart) throw new Error(`${this.name} failed to start`);
  }
  async stop() {
    this.stops++;
    this.log.push(`stop ${this.name}`);
  }
  isReady() {
    return this.ready;
  }
}

async function get(host: ServiceHost, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${host.healthPort()}${path}`);
  return { status: res.status, body: await res.text() };
}

/** Whether anything still listens on the port. */
async function listening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/health/live`).then(
    () => true,
    () => false,
  );
}

describe('ServiceHost', () => {
  it('stops what it started in reverse order of start, the health server last', async () => {
    const log: string[] = [];
    const host = new ServiceHost({ name: 'host-test', config, logger });
    await host.start(async () => {
      await host.serveHealth();
      await host.startPart(new Part('reader', log));
      await host.startPart(new Part('processor', log), 'events');
      host.onStop(() => void log.push('stop job'));
    });
    const port = host.healthPort();
    expect(port).toBeGreaterThan(0);
    host.onStop(async () => {
      log.push(`health server up: ${await listening(port)}`);
    });
    await host.stop();
    expect(log).toEqual([
      'start reader',
      'start processor',
      'health server up: true',
      'stop job',
      'stop processor',
      'stop reader',
    ]);
    expect(await listening(port)).toBe(false);
  });

  it('stops what started when the start fails half-way, then rethrows; a later stop has nothing left to do', async () => {
    const log: string[] = [];
    const host = new ServiceHost({ name: 'host-test', config, logger });
    const reader = new Part('reader', log);
    const processor = new Part('processor', log, true);
    const never = new Part('never', log);
    await expect(
      host.start(async () => {
        await host.serveHealth();
        await host.startPart(reader);
        await host.startPart(processor, 'events');
        await host.startPart(never);
      }),
    ).rejects.toThrow('processor failed to start');
    const port = host.healthPort();
    // The part whose start failed is stopped too: it may have connected before it failed.
    expect(log).toEqual(['start reader', 'start processor', 'stop processor', 'stop reader']);
    expect(await listening(port)).toBe(false);
    await host.stop();
    expect([reader.stops, processor.stops, never.stops]).toEqual([1, 1, 0]);
  });

  it('is ready only once the start finished and while every readiness check passes', async () => {
    const host = new ServiceHost({ name: 'host-test', config, logger });
    const processor = new Part('processor', []);
    let during: { status: number; body: string } | undefined;
    await host.start(async () => {
      await host.serveHealth();
      await host.startPart(processor, 'events');
      during = await get(host, '/health/ready');
    });
    try {
      expect(during).toEqual({
        status: 503,
        body: JSON.stringify({ status: 'DOWN', checks: { events: true, started: false } }),
      });
      expect(await get(host, '/health/ready')).toEqual({
        status: 200,
        body: JSON.stringify({ status: 'UP', checks: { events: true, started: true } }),
      });
      processor.ready = false;
      expect((await get(host, '/health/ready')).status).toBe(503);
      expect(await get(host, '/health/live')).toEqual({ status: 200, body: '{"status":"UP"}' });
      const metrics = await get(host, '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('service="host-test"');
    } finally {
      await host.stop();
    }
  });

  it('is not live while a part says it has stopped making progress (a stalled batch), named or not', async () => {
    const host = new ServiceHost({ name: 'host-test', config, logger });
    const stalled = { live: true, start: () => undefined, stop: () => undefined, isLive: () => stalled.live };
    const unnamed = { live: true, start: () => undefined, stop: () => undefined, isLive: () => unnamed.live };
    await host.start(async () => {
      await host.serveHealth();
      await host.startPart(stalled, 'events');
      await host.startPart(unnamed);
    });
    try {
      expect(await get(host, '/health/live')).toEqual({ status: 200, body: '{"status":"UP"}' });
      stalled.live = false;
      expect(await get(host, '/health/live')).toEqual({ status: 503, body: '{"status":"DOWN"}' });
      stalled.live = true;
      unnamed.live = false;
      expect((await get(host, '/health/live')).status).toBe(503);
      unnamed.live = true;
      expect((await get(host, '/health/live')).status).toBe(200);
    } finally {
      await host.stop();
    }
  });

  it('serves a service’s own handler on the health port; closing it early leaves the host’s close a no-op', async () => {
    const log: string[] = [];
    const host = new ServiceHost({ name: 'host-test', config, logger });
    await host.start(async () => {
      const api = await host.listen((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('own');
      });
      await host.startPart(new Part('processor', log));
      host.onStop(async () => {
        await api.close();
        log.push('api closed');
      });
    });
    const port = host.healthPort();
    expect(await get(host, '/anything')).toEqual({ status: 200, body: 'own' });
    await host.stop();
    expect(log).toEqual(['start processor', 'api closed', 'stop processor']);
    expect(await listening(port)).toBe(false);
    expect(host.healthPort()).toBe(0);
  });

  it('listens on a port of the service’s own, leaving the health port as it is; the last listener closes first', async () => {
    const log: string[] = [];
    const host = new ServiceHost({ name: 'host-test', config, logger });
    let api: Listener | undefined;
    await host.start(async () => {
      await host.serveHealth();
      await host.startPart(new Part('publisher', log));
      api = await host.listen(
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('own port');
        },
        { port: 0, host: '127.0.0.1', keepAliveTimeoutMs: 65000 },
      );
      host.onStop(async () => {
        log.push('draining');
        await api!.close();
        log.push('api closed');
      });
    });
    const apiPort = api!.port();
    const healthPort = host.healthPort();
    expect(apiPort).not.toBe(healthPort);
    expect(await (await fetch(`http://127.0.0.1:${apiPort}/x`)).text()).toBe('own port');
    expect((await get(host, '/health/live')).status).toBe(200);
    await host.stop();
    expect(log).toEqual(['start publisher', 'draining', 'api closed', 'stop publisher']);
    expect(await listening(apiPort)).toBe(false);
    expect(await listening(healthPort)).toBe(false);
  });

  it('keeps stopping when a part fails to stop, and throws that failure', async () => {
    const log: string[] = [];
    const host = new ServiceHost({ name: 'host-test', config, logger });
    const failure = new Error('could not leave the group');
    await host.start(async () => {
      await host.serveHealth();
      host.onStop(() => void log.push('store closed'));
      host.onStop(() => Promise.reject(failure));
    });
    const port = host.healthPort();
    await expect(host.stop()).rejects.toBe(failure);
    expect(log).toEqual(['store closed']);
    expect(await listening(port)).toBe(false);
  });
});

const metrics = createMetricsRegistry('host-test');
// Nothing here connects: the clients are only handed on.
const messaging: Messaging = {
  kafka: createKafka(config, 'host-test', logger),
  serde: new MessageSerde(config),
  topics: topicNames('t1.'),
  prefix: 't1.',
};

describe('hostMessaging', () => {
  const m = hostMessaging(messaging, logger, metrics);

  it('keeps the messaging set-up as it is', () => {
    expect(m.kafka).toBe(messaging.kafka);
    expect(m.serde).toBe(messaging.serde);
    expect(m.topics).toEqual(messaging.topics);
    expect(m.prefix).toBe('t1.');
  });

  it("builds a consumer's shared options: the clients, logger, metrics and the prefixed group", () => {
    const options = m.consumerOptions('projector');
    expect(options).toEqual({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger,
      metrics,
      groupId: 't1.projector',
    });
    expect(options.kafka).toBe(messaging.kafka);
    expect(options.serde).toBe(messaging.serde);
    expect(options.logger).toBe(logger);
    expect(options.metrics).toBe(metrics);
  });

  it("builds a processor's: the consumer's and the prefixed transactional ids", () => {
    expect(m.processorOptions('evaluation', 'evaluation-tx')).toEqual({
      ...m.clients,
      groupId: 't1.evaluation',
      transactionalIdPrefix: 't1.evaluation-tx',
    });
  });

  it("builds a reader's: the clients (its stall gauge goes to the service's metrics) and the prefixed group prefix", () => {
    expect(m.readerOptions('screening-lists')).toEqual({
      ...m.clients,
      groupPrefix: 't1.screening-lists',
    });
  });

  it('prefixes names and works destructured', () => {
    const { prefixed, consumerOptions } = m;
    expect(prefixed('customer-decider-state')).toBe('t1.customer-decider-state');
    expect(consumerOptions('callback').groupId).toBe('t1.callback');
  });

  it("fits @crs/messaging's consumer and processor options", () => {
    const consumer = new AtLeastOnceConsumer<unknown>({
      ...m.consumerOptions('g'),
      topics: [m.topics.customerEvents],
      handle: async () => undefined,
    });
    expect(consumer.isReady()).toBe(false);
    const processor: TransactionalProcessorOptions<unknown> = {
      ...m.processorOptions('g', 'tx'),
      topic: m.topics.customerEvents,
      handler: { process: async () => [] },
    };
    expect(processor.groupId).toBe('t1.g');
  });
});
