import { randomUUID } from 'node:crypto';
import { streamKey, type CustomerEvent } from '@crs/contracts';
import type { DecodedMessage } from '@crs/messaging';
import { CustomerPrivacy, DataKeyStore, KeyEncryptionKeys } from '@crs/privacy';
import { connectMongo, type MongoConnection } from '@crs/store';
import { CustomerDirectory } from '../domain/customer-directory';
import { customerEventProjector } from './customer-event-projector';

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
