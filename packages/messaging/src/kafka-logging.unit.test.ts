import { memoryLogger } from '@crs/testing';
import { createKafka, ROUTINE_RESPONSE_ERRORS } from './kafka';

/** What kafkajs logs reaches the service's logger, at our level for it (decision 0039). */
describe('kafkajs logging', () => {
  const capture = () => {
    const { logger, records: lines } = memoryLogger('logging-test');
    const kafka = createKafka(
      {
        KAFKA_BROKERS: '127.0.0.1:9',
        KAFKA_SSL: false,
        KAFKA_SASL_MECHANISM: '',
        KAFKA_SASL_USERNAME: '',
        KAFKA_SASL_PASSWORD: '',
      },
      'logging-test',
      logger,
    );
    return { lines, kafkaLogger: kafka.logger() };
  };
  const settle = () => new Promise((r) => setImmediate(r));

  it('logs a CONCURRENT_TRANSACTIONS response, which the patched producer retries at once, at debug', async () => {
    const { lines, kafkaLogger } = capture();
    const [concurrent] = [...ROUTINE_RESPONSE_ERRORS];
    kafkaLogger.error('Response AddPartitionsToTxn(key: 24, version: 1)', { error: concurrent });
    await settle();
    expect(lines).toEqual([]);
  });

  it('keeps every other error response at error level', async () => {
    const { lines, kafkaLogger } = capture();
    kafkaLogger.error('Response AddPartitionsToTxn(key: 24, version: 1)', {
      error:
        'The producer attempted to use a producer id which is not currently assigned to its transactional id',
    });
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'Response AddPartitionsToTxn(key: 24, version: 1)' });
  });
});
