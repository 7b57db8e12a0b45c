import { kafkajsInternal } from './kafka-wire.fixtures';

/**
 * Our patch of kafkajs's request queue (patches/kafkajs@2.2.4.patch, decision 0059; kafkajs#1556, #1704).
 * Unpatched, every connection's queue re-armed a timer of 1 ms after each check for pending requests, even
 * with nothing pending: each idle service woke about 900 times a second. With the patch a queue with nothing
 * pending arms no timer, and what the timer exists for still works: a request held back by the broker's
 * throttle or by the in-flight limit is sent once it may be.
 */
interface Entry {
  correlationId: number;
  apiKey: number;
  apiName: string;
  apiVersion: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
interface RequestQueue {
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
  throttleCheckTimeoutId: unknown;
  pending: unknown[];
}
type RequestQueueClass = new (options: Record<string, unknown>) => RequestQueue;

const RequestQueueCtor = kafkajsInternal('network/requestQueue') as RequestQueueClass;
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function newQueue(maxInFlightRequests: number | null = null): RequestQueue {
  return new RequestQueueCtor({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'request-queue-test',
    broker: '127.0.0.1:9092',
    logger: silent,
  });
}

/** A Fetch request whose sending is recorded in `sent` and whose answer resolves `answered`. */
function request(correlationId: number, sent: number[]) {
  let resolve!: (value: unknown) => void;
  const answered = new Promise((r) => (resolve = r));
  const entry: Entry = {
    correlationId,
    apiKey: 1,
    apiName: 'Fetch',
    apiVersion: 11,
    resolve,
    reject: () => {},
  };
  return { pushed: { entry, expectResponse: true, sendRequest: () => sent.push(correlationId) }, answered };
}

const answer = (q: RequestQueue, correlationId: number) =>
  q.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await sleep(5);
  expect(condition()).toBe(true);
}

/** A check armed while something was pending runs once more, finds nothing and arms no other. */
async function quiet(q: RequestQueue): Promise<void> {
  await until(() => q.throttleCheckTimeoutId === null);
  await sleep(30);
  expect(q.throttleCheckTimeoutId).toBeNull();
}

describe('kafkajs patch: a request queue with nothing pending arms no timer', () => {
  let queues: RequestQueue[] = [];
  const tracked = (q: RequestQueue) => (queues.push(q), q);
  afterEach(() => {
    for (const q of queues) q.destroy();
    queues = [];
    jest.restoreAllMocks();
  });

  it('answers a request and then stays quiet: no check is scheduled while idle', async () => {
    const q = tracked(newQueue());
    const sent: number[] = [];
    const r = request(1, sent);
    q.push(r.pushed);
    expect(sent).toEqual([1]);

    const timers = jest.spyOn(global, 'setTimeout');
    answer(q, 1);
    await r.answered;
    await sleep(50);
    // Unpatched: the answer's check armed a 1 ms timer that re-armed itself (dozens of calls in 50 ms).
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(timers.mock.calls.filter(([, ms]) => ms !== 50)).toEqual([]);
  });

  it('sends a request held back by the broker throttle once the throttle has passed', async () => {
    const q = tracked(newQueue());
    const sent: number[] = [];
    q.maybeThrottle(30);
    const r = request(7, sent);
    q.push(r.pushed);
    expect(sent).toEqual([]);
    expect(q.pending).toHaveLength(1);

    await until(() => sent.length === 1);
    expect(sent).toEqual([7]);
    answer(q, 7);
    await r.answered;
    expect(q.pending).toHaveLength(0);
    await quiet(q);
  });

  it('sends a request held back by the in-flight limit when an earlier one is answered', async () => {
    const q = tracked(newQueue(1));
    const sent: number[] = [];
    const first = request(1, sent);
    const second = request(2, sent);
    q.push(first.pushed);
    q.push(second.pushed);
    expect(sent).toEqual([1]);

    answer(q, 1);
    await first.answered;
    await until(() => sent.length === 2);
    expect(sent).toEqual([1, 2]);
    answer(q, 2);
    await second.answered;
    await quiet(q);
  });
});
