import { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { isSequenceError } from './publisher';

/** Which failed sends make the publisher take a new producer (decision 0041). */
describe('isSequenceError', () => {
  const protocol = (type: string, code: number) =>
    new KafkaJSProtocolError({ type, code, retriable: false, message: type } as never);

  it('finds a sequence error however kafkajs wrapped it', () => {
    const outOfOrder = protocol('OUT_OF_ORDER_SEQUENCE_NUMBER', 45);
    expect(isSequenceError(outOfOrder)).toBe(true);
    expect(
      isSequenceError(new KafkaJSNumberOfRetriesExceeded(outOfOrder, { retryCount: 5, retryTime: 300 })),
    ).toBe(true);
    expect(isSequenceError({ name: 'KafkaJSAggregateError', errors: [new Error('x'), outOfOrder] })).toBe(
      true,
    );
    expect(isSequenceError(protocol('UNKNOWN_PRODUCER_ID', 59))).toBe(true);
    expect(isSequenceError(protocol('INVALID_PRODUCER_EPOCH', 47))).toBe(true);
  });

  it('leaves every other failure to the ordinary retry', () => {
    expect(isSequenceError(protocol('NOT_LEADER_FOR_PARTITION', 6))).toBe(false);
    expect(
      isSequenceError(
        new KafkaJSNumberOfRetriesExceeded(new Error('ECONNREFUSED'), { retryCount: 5, retryTime: 300 }),
      ),
    ).toBe(false);
    expect(isSequenceError(new Error('ack timeout'))).toBe(false);
    expect(isSequenceError(undefined)).toBe(false);
  });
});
