import { randomUUID } from 'node:crypto';
import { LIST_PURPOSE_HEADER, listPurposeHeader, streamKey, type CustomerEvent } from '@crs/contracts';
import { StreamReader, setUpMessaging, type DecodedMessage, type Messaging } from '@crs/messaging';
import { CustomerPrivacy, DataKeyStore, KeyEncryptionKeys } from '@crs/privacy';
import { createLogger } from '@crs/runtime';
import { connectMongo, type MongoConnection } from '@crs/store';
import { deleteTopicsWithPrefix, eventually, scratchMessagingSettings } from '@crs/testing';
import { CustomerDirectory } from '../domain/customer-directory';
import { customerEvent } from '../customer-event.fixtures';
import { customerEventProjector, directoryReading } from './customer-event-projector';

/**
 * The screening directory fed a sealed record (decision 0054) on the real store: it opens what it screens
 * and keeps, of a customer on the internal list, the screened fields in plain and nothing sealed.
 */
describe('customerEventProjector with sealed records', () => {
  let mongo: MongoConnection;

  beforeAll(async () => {
    mongo = await connectMongo({
      MONGODB_URI: process.env.MONGODB_URI!,
      MONGODB_DB: `crs_it_screening_dir_${randomUUID().slice(0, 8)}`,
    });
  });
  afterAll(async () => {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  it('keeps the names of a BLACK customer in plain, without the sealed value or other personal fields', async () => {
    const keks = KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-1'));
    const privacy = CustomerPrivacy.withKeys(new DataKeyStore({ db: mongo.db, keks }));
    const streamId = streamKey('DEMO', 'C-BLACK');
    const plain = {
      businessUnit: 'DEMO',
      customerExtId: 'C-BLACK',
      entityType: 'INDIVIDUAL',
      firstName: 'Ivan',
      lastName: 'Petrov',
      birthDate: '1970-01-01',
      citizenshipCountry: 'LT',
      listPurpose: 'BLACK',
      listAddress: [{ addressType: 'RESIDENTIAL', country: 'LT', city: 'Vilnius' }],
    };
    const [sealed] = await privacy.encryptCustomers([{ streamId, customer: plain }]);
    const directory = new CustomerDirectory();
    const project = customerEventProjector({ directory, privacy: () => privacy });
    const event = {
      type: 'CustomerCreated',
      eventId: 'e-1',
      streamId,
      streamVersion: 1,
      businessUnit: 'DEMO',
      customerExtId: 'C-BLACK',
      correlationId: 'COMM-1',
      occurredAt: '2026-11-27T00:00:00.000Z',
      data: { customer: sealed, sourceOfRiskLevel: 'IMPORT', channel: 'SINGLE', simplified: false },
    } as unknown as CustomerEvent;
    await project({ value: event } as DecodedMessage<CustomerEvent>);

    const kept = directory.listPurposeOf(streamId);
    expect(kept).toMatchObject({
      purpose: 'BLACK',
      customer: { firstName: 'Ivan', lastName: 'Petrov', birthDate: '1970-01-01', citizenshipCountry: 'LT' },
    });
    expect(kept!.customer).not.toHaveProperty('sealedPersonalData');
    expect(kept!.customer).not.toHaveProperty('listAddress');
    expect(directory.internalEntries().map((e) => e.names)).toEqual([['Ivan Petrov']]);
  });
});

/**
 * The directory's reader as the service composes it (decision 0073), on the real broker, registry and
 * store: customer events with the headers the customer decider writes, sealed records. The records of a
 * customer without a list purpose are not decoded, and the directory is what a fold of every event gives.
 */
describe('the screening directory reader skips records without a list purpose', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const prefix = `crs-it-dirskip-${run}.`;
  const logger = createLogger('directory-skip-it', 'fatal');
  let messaging: Messaging;
  let mongo: MongoConnection;
  let reader: StreamReader<CustomerEvent> | undefined;

  beforeAll(async () => {
    messaging = await setUpMessaging(scratchMessagingSettings(prefix), 'directory-skip-it', logger);
    mongo = await connectMongo({
      MONGODB_URI: process.env.MONGODB_URI!,
      MONGODB_DB: `crs_it_screening_skip_${randomUUID().slice(0, 8)}`,
    });
  });
  afterAll(async () => {
    await reader?.stop();
    await deleteTopicsWithPrefix(messaging.kafka, prefix);
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  it('folds the same directory without decoding those records', async () => {
    const keks = KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-1'));
    const privacy = CustomerPrivacy.withKeys(new DataKeyStore({ db: mongo.db, keks }));
    const sealedOf = async (customerExtId: string, fields: Record<string, unknown>) =>
      (
        await privacy.encryptCustomers([
          {
            streamId: streamKey('DEMO', customerExtId),
            customer: { businessUnit: 'DEMO', customerExtId, entityType: 'INDIVIDUAL', ...fields },
          },
        ])
      )[0]!;
    const event = (type: CustomerEvent['type'], customerExtId: string, data: Record<string, unknown>) =>
      customerEvent(type, streamKey('DEMO', customerExtId), data);
    const recordEvent = async (type: 'CustomerCreated' | 'CustomerUpdated', id: string, fields: object) =>
      event(type, id, {
        customer: await sealedOf(id, fields as Record<string, unknown>),
        sourceOfRiskLevel: 'IMPORT',
        channel: 'SINGLE',
      });
    const plain = { firstName: 'Ann', lastName: 'Plain' };
    const events = [
      await recordEvent('CustomerCreated', 'C-PLAIN', plain),
      event('ScreeningRequested', 'C-PLAIN', {
        requestId: 'r-1',
        lists: ['SANCTIONS'],
        customer: await sealedOf('C-PLAIN', plain),
      }),
      await recordEvent('CustomerCreated', 'C-BLACK', {
        firstName: 'Ivan',
        lastName: 'Petrov',
        listPurpose: 'BLACK',
      }),
      event('InternalListPurposeRecorded', 'C-BLACK', { listPurpose: 'BLACK' }),
      // In the same fetch as the purpose: read, so the internal list follows the new name.
      await recordEvent('CustomerUpdated', 'C-BLACK', { firstName: 'Ivan', lastName: 'Sidorov' }),
      await recordEvent('CustomerUpdated', 'C-PLAIN', { firstName: 'Ann', lastName: 'Changed' }),
    ];
    const producer = messaging.kafka.producer();
    await producer.connect();
    await producer.send({
      topic: messaging.topics.customerEvents,
      messages: await Promise.all(
        events.map(async (e) => ({
          key: e.streamId,
          value: await messaging.serde.encode(e.type, e),
          headers: {
            type: e.type,
            ...(e.type === 'CustomerCreated' || e.type === 'CustomerUpdated'
              ? { [LIST_PURPOSE_HEADER]: listPurposeHeader(e.data.customer) }
              : {}),
          },
        })),
      ),
    });
    await producer.disconnect();

    const directory = new CustomerDirectory();
    // The reading the service composes (app.ts spreads the same options into its reader).
    const reading = directoryReading({ directory, privacy: () => privacy });
    const handed: string[] = [];
    const decode = jest.spyOn(messaging.serde, 'decode');
    reader = new StreamReader<CustomerEvent>({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger,
      topic: messaging.topics.customerEvents,
      groupPrefix: `${prefix}directory`,
      ...reading,
      onMessage: async (m) => {
        handed.push(m.value.eventId);
        await reading.onMessage(m);
      },
    });
    await reader.start();
    await eventually(async () => handed.length >= 4, 30000, 'the directory reader to fold the log');
    await reader.waitUntilCaughtUp();

    // The plain customer's two records were skipped before decoding; everything else was decoded and folded.
    const read = events.slice(1, 5).map((e) => e.eventId);
    expect(handed).toEqual(read);
    const decodedIds = decode.mock.calls.map(
      ([buffer]) => /"eventId":"([^"]+)"/.exec(Buffer.from(buffer).toString('utf8'))?.[1],
    );
    expect(decodedIds).toEqual(read);
    decode.mockRestore();
    // The same directory as a fold of every event (decrypted as the projector does).
    const everything = new CustomerDirectory();
    const projectAll = customerEventProjector({ directory: everything, privacy: () => privacy });
    for (const e of events) await projectAll({ value: e } as DecodedMessage<CustomerEvent>);
    expect(directory.internalEntries()).toEqual(everything.internalEntries());
    expect(directory.internalEntries().map((e) => e.names)).toEqual([['Ivan Sidorov']]);
    expect([...directory.screened.keys()]).toEqual([streamKey('DEMO', 'C-PLAIN')]);
    expect(directory.screened.get(streamKey('DEMO', 'C-PLAIN'))).toEqual(
      everything.screened.get(streamKey('DEMO', 'C-PLAIN')),
    );
    expect(directory.listPurposeOf(streamKey('DEMO', 'C-PLAIN'))).toBeUndefined();
  });
});
