import { createLogger } from '@crs/runtime';
import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import { StreamReader, setUpMessaging, streamKey, type Messaging } from '@crs/messaging';
import { deleteTopicsWithPrefix, scratchMessagingSettings } from '@crs/testing';
import { buildCustomerService, type CustomerService } from './app';
import { loadCustomerConfig } from './config';
import { SNAPSHOT_SUBJECT, SNAPSHOT_TYPE, snapshotSchema, type StateSnapshot } from './state-snapshots';

/**
 * Decision 0081 on the real broker: the snapshots a busy transaction leaves behind (more changed states
 * than one transaction writes) are written while the partition is idle, without a further command, and
 * the last of them carries a checkpoint past the partition's events; a command that arrives while they
 * are being written is decided all the same, and a restarted decider decides on from them.
 */
describe('customer decider: snapshots left behind are written while idle', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const prefix = `crs-test.idle-snap-${run}.`;
  const logger = createLogger('idle-snapshots-it', 'fatal');
  const CUSTOMERS = 12;
  let messaging: Messaging;
  const events: { event: CustomerEvent; offset: bigint }[] = [];
  const snapshots: { value: StateSnapshot; offset: bigint }[] = [];
  const readers: StreamReader<unknown>[] = [];
  let seq = 0;

  const service = (): CustomerService =>
    buildCustomerService(
      loadCustomerConfig({
        ...process.env,
        TOPIC_PREFIX: prefix,
        TOPIC_PARTITIONS: '1',
        HEALTH_PORT: '0',
        STATE_SNAPSHOTS: 'true',
        // One snapshot per transaction: a batch of several customers leaves the others behind.
        SNAPSHOT_MAX_PER_TRANSACTION: '1',
        SNAPSHOT_INTERVAL_MS: '300',
        LOG_LEVEL: 'fatal',
      }),
      logger,
    );

  const customerId = (i: number) => `C-${run}-${i}`;
  const command = (i: number, correlationId: string): CustomerCommand => ({
    commandId: `cmd-${run}-${++seq}`,
    type: 'ImportSimplifiedCustomer',
    streamId: streamKey('DEMO', customerId(i)),
    issuedAt: new Date().toISOString(),
    correlationId,
    businessUnit: 'DEMO',
    customerExtId: customerId(i),
    data: {
      customer: {
        communicationNumber: correlationId,
        businessUnit: 'DEMO',
        customerExtId: customerId(i),
        entityType: 'INDIVIDUAL',
        firstName: 'Test',
        lastName: `Person ${seq}`,
      },
    },
  });

  /** The commands in one produce call, so the decider fetches them as one batch. */
  const send = async (commands: CustomerCommand[]): Promise<string[]> => {
    const producer = messaging.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: messaging.topics.customerCommands,
      acks: -1,
      messages: await Promise.all(
        commands.map(async (c) => ({
          key: c.streamId,
          value: await messaging.serde.encode(c.type, c),
          headers: { type: c.type },
        })),
      ),
    });
    await producer.disconnect();
    return commands.map((c) => c.commandId);
  };

  const until = async (what: string, done: () => boolean): Promise<void> => {
    for (const stop = Date.now() + 60000; !done(); ) {
      if (Date.now() > stop) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const decided = (ids: string[]) => () =>
    ids.every((id) => events.some(({ event }) => event.causationId === id));
  /** The newest stream version of every customer, by its events. */
  const latest = () => {
    const out = new Map<string, number>();
    for (const { event } of events)
      out.set(event.streamId, Math.max(out.get(event.streamId) ?? 0, event.streamVersion));
    return out;
  };
  /** Every customer's newest snapshot holds its newest version. */
  const snapshotsCurrent = () => {
    const want = latest();
    if (want.size < CUSTOMERS) return false;
    const have = new Map<string, number>();
    for (const { value } of snapshots)
      have.set(value.streamId, Math.max(have.get(value.streamId) ?? 0, value.state.version));
    return [...want].every(([id, v]) => have.get(id) === v);
  };

  beforeAll(async () => {
    messaging = await setUpMessaging(scratchMessagingSettings(prefix, 1), 'idle-snapshots-it', logger);
    await messaging.serde.register(SNAPSHOT_SUBJECT, SNAPSHOT_TYPE, snapshotSchema);
    const read = <T>(topic: string, group: string, onMessage: (value: T, offset: bigint) => void) => {
      const reader = new StreamReader<T>({
        kafka: messaging.kafka,
        serde: messaging.serde,
        logger,
        topic,
        groupPrefix: `${prefix}${group}`,
        onMessage: (m) => onMessage(m.value, BigInt(m.offset)),
      });
      readers.push(reader as StreamReader<unknown>);
      return reader.start();
    };
    await read<CustomerEvent>(messaging.topics.customerEvents, 'it-events', (event, offset) =>
      events.push({ event, offset }),
    );
    await read<StateSnapshot>(messaging.topics.customerStateSnapshots, 'it-snapshots', (value, offset) =>
      snapshots.push({ value, offset }),
    );
  });
  afterAll(async () => {
    for (const r of readers) await r.stop();
    await deleteTopicsWithPrefix(messaging.kafka, prefix);
  });

  it('drains the snapshot backlog without commands, lets a command in meanwhile, and restarts from it', async () => {
    let decider = service();
    await decider.start();
    try {
      // 1. Twelve new customers in one batch: its transaction writes one snapshot, the idle partition the rest.
      const created = await send(Array.from({ length: CUSTOMERS }, (_, i) => command(i, `N1-${run}`)));
      await until('the first batch decided', decided(created));
      await until('every customer snapshotted at its newest version', snapshotsCurrent);
      const lastEvent = events.reduce((a, e) => (e.offset > a ? e.offset : a), -1n);
      const newest = snapshots[snapshots.length - 1]!.value;
      expect(newest.foldFrom).not.toBeNull();
      expect(BigInt(newest.foldFrom!)).toBeGreaterThan(lastEvent);

      // 2. Every customer updated again; a single command sent while the idle partition writes their
      //    snapshots one transaction at a time is decided too.
      const written = snapshots.length;
      const updated = await send(Array.from({ length: CUSTOMERS }, (_, i) => command(i, `N2-${run}`)));
      await until('the second batch decided', decided(updated));
      await until('the idle snapshots under way', () => snapshots.length > written + 1);
      const meanwhile = await send([command(0, `N3-${run}`)]);
      await until('the command sent meanwhile decided', decided(meanwhile));
      await until('every customer snapshotted at its newest version again', snapshotsCurrent);
    } finally {
      await decider.stop();
    }

    // 3. A restarted decider reads the snapshots and folds from their checkpoint: the next decision
    //    continues the customer's versions.
    const before = latest().get(streamKey('DEMO', customerId(3)))!;
    decider = service();
    await decider.start();
    try {
      const [again] = await send([command(3, `N4-${run}`)]);
      await until('the command after the restart decided', decided([again!]));
      const after = events.filter(({ event }) => event.causationId === again);
      expect(after[0]!.event).toMatchObject({ type: 'CustomerUpdated', streamVersion: before + 1 });
    } finally {
      await decider.stop();
    }
  }, 180000);
});
