import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { MongoClient, type Db } from 'mongodb';
import { DataKeyStore } from './data-key-store';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { PersonalDataCipher } from './personal-data';
import { streamKey } from '@crs/contracts';
import { CustomerPersonalFields } from './personal-fields';

/**
 * Crypto-shredding of a Kafka copy, at the library level: customer records encrypted with the key
 * store are written to a scratch topic on the real broker. After one customer's key is erased, a raw
 * dump of the topic holds no plaintext of anybody, and every read of it (a replay) gives the erased
 * customer's personal fields as null while the other customer stays readable. The end-to-end
 * version through the services remains to be written (docs/privacy.md).
 */
describe('crypto-shredding of a topic (real Kafka and store)', () => {
  const kafka = new Kafka({
    clientId: 'privacy-int',
    brokers: process.env.KAFKA_BROKERS!.split(','),
    logLevel: logLevel.NOTHING,
  });
  const topic = `it-privacy-${process.pid}-${Date.now().toString(36)}`;
  let admin: Admin;
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_shred_${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await db.dropDatabase();
    await client.close();
  });

  /** Every message of the topic from its beginning, as text. */
  async function dump(expected: number): Promise<string[]> {
    const consumer = kafka.consumer({ groupId: `it-privacy-dump-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const values: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
      void consumer.run({
        eachMessage: async ({ message }) => {
          values.push(message.value!.toString('utf8'));
          if (values.length === expected) resolve();
        },
      });
    });
    await consumer.disconnect();
    return values;
  }

  it('leaves no plaintext on the topic and makes the erased customer unreadable in every read', async () => {
    const keks = KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-1'));
    const cipher = new PersonalDataCipher(new DataKeyStore({ db, keks }));
    const anna = streamKey('BU1', 'C-ANNA');
    const bob = streamKey('BU1', 'C-BOB');
    const records = [
      {
        streamId: anna,
        customer: {
          customerExtId: 'C-ANNA',
          firstName: 'Anna Maria',
          nationalCode: '80022912345',
          birthDate: '1980-02-29',
        },
      },
      {
        streamId: bob,
        customer: {
          customerExtId: 'C-BOB',
          firstName: 'Bob Robert',
          nationalCode: '75050554321',
          birthDate: '1975-05-05',
        },
      },
    ];
    const producer = kafka.producer();
    await producer.connect();
    for (const r of records) {
      const customer = await cipher.encryptFields(r.streamId, r.customer, CustomerPersonalFields);
      await producer.send({
        topic,
        messages: [{ key: r.streamId, value: JSON.stringify({ streamId: r.streamId, customer }) }],
      });
    }
    await producer.disconnect();

    // Erased through another store instance: another process, as the erasure API or retention job would be.
    await new DataKeyStore({ db, keks }).erase(anna);
    const reader = new PersonalDataCipher(new DataKeyStore({ db, keks }));

    for (let replay = 0; replay < 2; replay += 1) {
      const raw = await dump(records.length);
      const text = raw.join('\n');
      for (const secret of [
        'Anna Maria',
        '80022912345',
        '1980-02-29',
        'Bob Robert',
        '75050554321',
        '1975-05-05',
      ]) {
        expect(text).not.toContain(secret);
      }
      const read = await Promise.all(
        raw.map(async (value) => {
          const message = JSON.parse(value) as { streamId: string; customer: Record<string, unknown> };
          return {
            streamId: message.streamId,
            ...(await reader.decryptFields(message.streamId, message.customer)),
          };
        }),
      );
      expect(read).toEqual([
        {
          streamId: anna,
          record: { customerExtId: 'C-ANNA', firstName: null, nationalCode: null, birthDate: null },
          erased: true,
          erasedPaths: ['firstName', 'nationalCode', 'birthDate'],
          invalidPaths: [],
        },
        {
          streamId: bob,
          record: records[1]!.customer,
          erased: false,
          erasedPaths: [],
          invalidPaths: [],
        },
      ]);
    }
  });
});
