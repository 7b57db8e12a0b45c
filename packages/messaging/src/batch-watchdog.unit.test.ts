import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { BatchWatchdog } from './batch-watchdog';

/** The stall rule on a clock of its own: what counts as a sign of life, and what is reported once. */
describe('BatchWatchdog', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('watchdog-test', 'error');
  beforeEach(() => {
    lines.length = 0;
    jest.spyOn(logger, 'error').mockImplementation(((obj: Record<string, unknown>) => {
      lines.push(obj);
    }) as never);
  });
  afterEach(() => jest.restoreAllMocks());

  const make = () => {
    let t = 1_000;
    const metrics = createMetricsRegistry('watchdog-test');
    const dog = new BatchWatchdog({ logger, groupId: 'g', stallMs: 30_000, metrics, now: () => t });
    return { dog, metrics, at: (ms: number) => (t = 1_000 + ms) };
  };

  it('reports a batch silent for the bound, with its last phase and offset, and logs it once', async () => {
    const { dog, metrics, at } = make();
    const batch = dog.begin('events', 3);
    batch.phase('handler attempt 1', '41');
    at(29_999);
    expect(dog.check()).toBeUndefined();
    at(30_000);
    expect(dog.check()).toEqual({
      groupId: 'g',
      topic: 'events',
      partition: 3,
      phase: 'handler attempt 1',
      offset: '41',
      stalledForMs: 30_000,
    });
    at(45_000);
    expect(dog.check()?.stalledForMs).toBe(45_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      code: 'CONSUMER_BATCH_STALLED',
      topic: 'events',
      partition: 3,
      offset: '41',
    });
    expect(await metrics.getSingleMetricAsString('kafka_batch_stalled_seconds')).toMatch(
      /group="g"[^}]*} 45$/m,
    );
  });

  it('counts every phase entered as a sign of life: a retry loop with backoffs is not a stall', () => {
    const { dog, at } = make();
    const batch = dog.begin('events', 0);
    // A store down for two minutes: attempts and backoffs of up to 5 s, each a new phase.
    for (let ms = 0, attempt = 1; ms < 120_000; ms += 5_000, attempt++) {
      at(ms);
      batch.phase(`handler attempt ${attempt}`, '7');
      at(ms + 2_500);
      batch.phase('backoff', '7');
      expect(dog.check()).toBeUndefined();
    }
    expect(lines).toHaveLength(0);
  });

  it('forgets a batch once it ends, whether it returned or threw', async () => {
    const { dog, at } = make();
    await dog.watch('events', 0, async (b) => b.phase('commit', '9'));
    await expect(
      dog.watch('events', 1, async () => {
        throw new Error('store down');
      }),
    ).rejects.toThrow('store down');
    at(60_000);
    expect(dog.check()).toBeUndefined();
  });

  it('does not judge a phase marked so (a partition catch-up) until the batch enters the next one', () => {
    const { dog, at } = make();
    const batch = dog.begin('commands', 2);
    batch.unjudged('catch-up');
    at(600_000);
    expect(dog.check()).toBeUndefined();
    batch.phase('process', '100');
    at(630_000);
    expect(dog.check()).toMatchObject({ partition: 2, phase: 'process', offset: '100' });
  });

  it('reports the batch silent the longest when several are', () => {
    const { dog, at } = make();
    const a = dog.begin('events', 0);
    const b = dog.begin('events', 1);
    a.phase('commit', '5');
    at(10_000);
    b.phase('handler attempt 2', '8');
    at(50_000);
    expect(dog.check()).toMatchObject({ partition: 0, phase: 'commit', stalledForMs: 50_000 });
    expect(lines.map((l) => l.partition)).toEqual([0, 1]);
  });
});
