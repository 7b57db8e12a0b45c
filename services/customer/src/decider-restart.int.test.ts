import { createLogger } from '@crs/runtime';
import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import { StreamReader, setUpMessaging, streamKey, type Messaging } from '@crs/messaging';
import { buildCustomerService, type CustomerService } from './app';
import { loadCustomerConfig } from './config';
import {
  SNAPSHOT_FORMAT,
  SNAPSHOT_SUBJECT,
  SNAPSHOT_TYPE,
  snapshotSchema,
  type StateSnapshot,
} from './state-snapshots';
import { initialState } from './domain/customer-state';

/**
 * The decider restarted over state snapshots, on the real broker: snapshots followed by events the
 * snapshots do not hold (written while snapshots were off) still decide against the right state, and a
 * corrupt or old-format snapshot makes the partition fold from the whole log instead of being trusted.
 */
describe('customer decider restart over state snapshots', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const prefix = `crs-test.snap-${run}.`;
  const logger = createLogger('decider-restart-it', 'fatal');
  const stream = streamKey('DEMO', `C-${run}`);
  let messaging: Messaging;
  const events: CustomerEvent[] = [];
  let eventsReader: StreamReader<CustomerEvent>;
  const snapshotsSeen: StateSnapshot[] = [];
  let snapshotsReader: StreamReader<StateSnapshot>;
  let seq = 0;

  const service = (snapshots: boolean): CustomerService =>
    buildCustomerService(
      loadCustomerConfig({
        ...process.env,
        TOPIC_PREFIX: prefix,
        TOPIC_PARTITIONS: '2',
        HEALTH_PORT: '0',
        STATE_SNAPSHOTS: String(snapshots),
        LOG_LEVEL: 'fatal',
      }),
      logger,
    );

  const send = async (correlationId: string): Promise<string> => {
    const commandId = `cmd-${run}-${++seq}`;
    const command = {
      commandId,
      type: 'ImportSimplifiedCustomer',
      streamId: stream,
      issuedAt: new Date().toISOString(),
      correlationId,
      businessUnit: 'DEMO',
      customerExtId: `C-${run}`,
      data: {
        customer: {
          communicationNumber: correlationId,
          businessUnit: 'DEMO',
          customerExtId: `C-${run}`,
          entityType: 'INDIVIDUAL',
          firstName: 'Test',
          lastName: `Person ${seq}`,
        },
      },
    } satisfies CustomerCommand;
    const producer = messaging.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: messaging.topics.customerCommands,
      acks: -1,
      messages: [
        {
          key: stream,
          value: await messaging.serde.encode(command.type, command),
          headers: { type: command.type },
        },
      ],
    });
    await producer.disconnect();
    return commandId;
  };

  const until = async (what: string, done: () => boolean): Promise<void> => {
    for (const stop = Date.now() + 30000; !done(); ) {
      if (Date.now() > stop) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const decided = (commandId: string) => events.filter((e) => e.causationId === commandId);
  const lastVersion = () => Math.max(0, ...events.map((e) => e.streamVersion));

  /** Decides the commands with one decider instance, waiting for the events of `expectEventsOf`. */
  const withDecider = async (snapshots: boolean, act: () => Promise<string>): Promise<string> => {
    const decider = service(snapshots);
    await decider.start();
    try {
      const id = await act();
      await until(`the events of ${id}`, () => decided(id).length > 0);
      return id;
    } finally {
      await decider.stop();
    }
  };

  /** A snapshot record written straight to the snapshot topic (raw bytes or a snapshot value). */
  const putSnapshot = async (value: Buffer | StateSnapshot) => {
    const producer = messaging.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: messaging.topics.customerStateSnapshots,
      acks: -1,
      messages: [
        {
          key: stream,
          value: Buffer.isBuffer(value) ? value : await messaging.serde.encode(SNAPSHOT_TYPE, value),
          headers: { type: SNAPSHOT_TYPE },
        },
      ],
    });
    await producer.disconnect();
  };
  /** A well-formed snapshot claiming a state that is wrong: trusted only if the fallback failed. */
  const bogus = (format: number): StateSnapshot => ({
    format,
    streamId: stream,
    state: { ...initialState(), exists: true, simplified: true, version: 1000 },
    foldFrom: '999999',
  });

  beforeAll(async () => {
    messaging = await setUpMessaging(
      (await import('@crs/testing')).scratchMessagingSettings(prefix, 2),
      'decider-restart-it',
      logger,
    );
    await messaging.serde.register(SNAPSHOT_SUBJECT, SNAPSHOT_TYPE, snapshotSchema);
    eventsReader = new StreamReader<CustomerEvent>({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger,
      topic: messaging.topics.customerEvents,
      groupPrefix: `${prefix}it-events`,
      onMessage: (m) => {
        events.push(m.value);
      },
    });
    await eventsReader.start();
  });
  afterAll(async () => {
    await eventsReader?.stop();
    await snapshotsReader?.stop();
    await (await import('@crs/testing')).deleteTopicsWithPrefix(messaging.kafka, prefix);
  });

  it('decides against snapshot + tail, and falls back to the full log past a corrupt or old snapshot', async () => {
    // 1. Decided with snapshots on: the customer's state is snapshotted with its events.
    const first = await withDecider(true, () => send('K1'));
    expect(decided(first)[0]!.type).toBe('CustomerCreated');
    snapshotsReader = new StreamReader<StateSnapshot>({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger,
      topic: messaging.topics.customerStateSnapshots,
      groupPrefix: `${prefix}it-snapshots`,
      onMessage: (m) => {
        snapshotsSeen.push(m.value);
      },
    });
    await snapshotsReader.start();
    await snapshotsReader.waitUntilCaughtUp();
    expect(snapshotsSeen.filter((s) => s.streamId === stream).pop()).toMatchObject({
      format: SNAPSHOT_FORMAT,
      state: { version: lastVersion() },
    });
    expect(snapshotsSeen.every((s) => s.foldFrom !== null)).toBe(true);

    // 2. Decided with snapshots off: events the snapshot does not hold.
    await withDecider(false, () => send('K2'));
    const versionAfterTail = lastVersion();

    // 3. Snapshot + tail: repeats of K1 (in the snapshot) and K2 (in the tail only) are no-ops, and
    //    the next decision continues the stream's versions.
    const repeats: string[] = [];
    const next = await withDecider(true, async () => {
      repeats.push(await send('K1'), await send('K2'));
      return send('K3');
    });
    expect(repeats.flatMap(decided)).toEqual([]);
    expect(decided(next)[0]).toMatchObject({ type: 'CustomerUpdated', streamVersion: versionAfterTail + 1 });

    // 4. A corrupt record, then a well-formed but wrong one: the partition is folded from the log.
    await putSnapshot(Buffer.from('not a snapshot'));
    await putSnapshot(bogus(SNAPSHOT_FORMAT));
    let version = lastVersion();
    const afterCorrupt = await withDecider(true, async () => {
      repeats.push(await send('K3'));
      return send('K4');
    });
    expect(repeats.flatMap(decided)).toEqual([]);
    expect(decided(afterCorrupt)[0]).toMatchObject({ streamVersion: version + 1 });

    // 5. A snapshot of an older (or unknown) format as the partition's newest record: ignored.
    await putSnapshot(bogus(SNAPSHOT_FORMAT + 1));
    version = lastVersion();
    const afterOldFormat = await withDecider(true, async () => {
      repeats.push(await send('K4'));
      return send('K5');
    });
    expect(repeats.flatMap(decided)).toEqual([]);
    expect(decided(afterOldFormat)[0]).toMatchObject({ streamVersion: version + 1 });
  }, 120000);
});
