import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { AtLeastOnceConsumer } from './at-least-once-consumer';
import {
  checkFetchTuning,
  createKafka,
  DEFAULT_FETCH_TUNING,
  fetchTuningOf,
  transactionLingerOf,
  batchStallOf,
  DEFAULT_BATCH_STALL_MS,
  type KafkaSettings,
} from './kafka';
import { MessageSerde } from './serde';
import { TransactionalProcessor } from './transactional-processor';

/** KAFKA_FETCH_MIN_BYTES / KAFKA_FETCH_MAX_WAIT_MS reach every consumer of the client (docs/operations.md). */
describe('Kafka fetch tuning', () => {
  const logger = createLogger('fetch-tuning-test', 'fatal');
  const base: KafkaSettings = {
    KAFKA_BROKERS: '127.0.0.1:9',
    KAFKA_SSL: false,
    KAFKA_SASL_MECHANISM: '',
    KAFKA_SASL_USERNAME: '',
    KAFKA_SASL_PASSWORD: '',
  };
  const serde = new MessageSerde({
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9/apis/ccompat/v7',
    SCHEMA_REGISTRY_USERNAME: '',
    SCHEMA_REGISTRY_PASSWORD: '',
  });

  it('keeps the defaults (answer at once, wait at most 200 ms) when nothing is set', () => {
    expect(fetchTuningOf(createKafka(base, 't', logger))).toEqual({ minBytes: 1, maxWaitTimeInMs: 200 });
    expect(DEFAULT_FETCH_TUNING).toEqual({ minBytes: 1, maxWaitTimeInMs: 200 });
  });

  it('hands the settings to the transactional processors and the at-least-once consumers of that client', () => {
    const kafka = createKafka(
      { ...base, KAFKA_FETCH_MIN_BYTES: 65536, KAFKA_FETCH_MAX_WAIT_MS: 25 },
      't',
      logger,
    );
    const consumer = jest.spyOn(kafka, 'consumer');
    const common = { kafka, serde, logger, metrics: createMetricsRegistry('fetch-tuning-test') };
    new TransactionalProcessor({
      ...common,
      groupId: 'g1',
      topic: 't1',
      transactionalIdPrefix: 'g1',
      handler: { process: async () => [] },
    });
    new AtLeastOnceConsumer({ ...common, groupId: 'g2', topics: ['t2'], handle: async () => undefined });
    expect(consumer).toHaveBeenCalledTimes(2);
    for (const [config] of consumer.mock.calls) {
      expect(config).toMatchObject({ minBytes: 65536, maxWaitTimeInMs: 25 });
    }
  });

  it("gives an at-least-once consumer its own tuning instead of its client's (the projector's linger)", () => {
    const kafka = createKafka(base, 't', logger);
    const consumer = jest.spyOn(kafka, 'consumer');
    new AtLeastOnceConsumer({
      kafka,
      serde,
      logger,
      metrics: createMetricsRegistry('fetch-tuning-test'),
      groupId: 'g3',
      topics: ['t3'],
      handle: async () => undefined,
      fetch: { minBytes: 262_144, maxWaitTimeInMs: 250 },
    });
    expect(consumer.mock.calls[0]![0]).toMatchObject({ minBytes: 262_144, maxWaitTimeInMs: 250 });
  });

  it('checkFetchTuning names the setting a value came from', () => {
    const names = { minBytes: 'MY_MIN', maxWaitTimeInMs: 'MY_WAIT' };
    expect(checkFetchTuning({ minBytes: 10, maxWaitTimeInMs: 10 }, names)).toEqual({
      minBytes: 10,
      maxWaitTimeInMs: 10,
    });
    expect(() => checkFetchTuning({ minBytes: 0, maxWaitTimeInMs: 10 }, names)).toThrow(/^MY_MIN/);
    expect(() => checkFetchTuning({ minBytes: 1, maxWaitTimeInMs: 10_001 }, names)).toThrow(/^MY_WAIT/);
  });

  it('refuses values kafkajs would misread, naming the setting', () => {
    expect(() => createKafka({ ...base, KAFKA_FETCH_MIN_BYTES: 0 }, 't', logger)).toThrow(
      /KAFKA_FETCH_MIN_BYTES/,
    );
    expect(() => createKafka({ ...base, KAFKA_FETCH_MAX_WAIT_MS: 2.5 }, 't', logger)).toThrow(
      /KAFKA_FETCH_MAX_WAIT_MS/,
    );
    expect(() => createKafka({ ...base, KAFKA_FETCH_MAX_WAIT_MS: 60000 }, 't', logger)).toThrow(
      /KAFKA_FETCH_MAX_WAIT_MS/,
    );
  });

  it('hands KAFKA_TXN_LINGER_MS (default 0: none) to the transactional processors of that client', () => {
    expect(transactionLingerOf(createKafka(base, 't', logger))).toBe(0);
    const common = { serde, logger, metrics: createMetricsRegistry('linger-test') };
    const processor = (kafka: ReturnType<typeof createKafka>, lingerMs?: number) =>
      new TransactionalProcessor({
        ...common,
        kafka,
        groupId: 'g4',
        topic: 't4',
        transactionalIdPrefix: 'g4',
        handler: { process: async () => [] },
        ...(lingerMs === undefined ? {} : { lingerMs }),
      }).lingerRule;
    expect(processor(createKafka(base, 't', logger))).toEqual({ ms: 0, windowMs: 100, minKeys: 3 });
    expect(processor(createKafka({ ...base, KAFKA_TXN_LINGER_MS: 20 }, 't', logger)).ms).toBe(20);
    expect(processor(createKafka({ ...base, KAFKA_TXN_LINGER_MS: 45 }, 't', logger)).ms).toBe(45);
    // A processor's own setting wins over its client's.
    expect(processor(createKafka({ ...base, KAFKA_TXN_LINGER_MS: 45 }, 't', logger), 0).ms).toBe(0);
    for (const bad of [-1, 2.5, 1001])
      expect(() => createKafka({ ...base, KAFKA_TXN_LINGER_MS: bad }, 't', logger)).toThrow(
        /KAFKA_TXN_LINGER_MS/,
      );
  });

  it('takes KAFKA_BATCH_STALL_MS (default five minutes) from 30 s to an hour, and refuses anything else by name', () => {
    expect(batchStallOf(createKafka(base, 't', logger))).toBe(DEFAULT_BATCH_STALL_MS);
    expect(DEFAULT_BATCH_STALL_MS).toBe(300_000);
    expect(batchStallOf(createKafka({ ...base, KAFKA_BATCH_STALL_MS: 30_000 }, 't', logger))).toBe(30_000);
    expect(batchStallOf(createKafka({ ...base, KAFKA_BATCH_STALL_MS: 3_600_000 }, 't', logger))).toBe(
      3_600_000,
    );
    // Shorter than the longest backoff and a slow attempt would restart healthy services.
    for (const bad of [0, 29_999, 2.5e4 + 0.5, 3_600_001])
      expect(() => createKafka({ ...base, KAFKA_BATCH_STALL_MS: bad }, 't', logger)).toThrow(
        /KAFKA_BATCH_STALL_MS/,
      );
  });
});
