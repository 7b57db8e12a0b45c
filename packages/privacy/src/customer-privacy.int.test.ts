import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { streamKey } from '@crs/contracts';
import { CustomerPrivacy } from './customer-privacy';
import { DataKeyStore } from './data-key-store';
import { KeyEncryptionKeys } from './key-encryption-keys';

/**
 * The read API's view of an erased customer (real store): a process that read the customer's key just
 * before another process erased it still has it cached for the cache's TTL. `decrypt` would show the
 * plaintext meanwhile (documented in docs/privacy.md for consumers); `erased`, which the read API uses
 * once the read model records the erasure, shows null without looking at a key, and drops the cached one.
 */
describe('CustomerPrivacy.erased (a recorded erasure wins over a cached key)', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_privacy_${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('shows the record erased at once, and forgets the key this process had cached', async () => {
    const keks = KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-1'));
    const privacy = CustomerPrivacy.withKeys(new DataKeyStore({ db, keks, cache: { ttlMs: 600_000 } }));
    const streamId = streamKey('DEMO', 'C-ERASED');
    const plain = {
      customerExtId: 'C-ERASED',
      firstName: 'Anna',
      nationalCode: '80022912345',
      citizenshipCountry: 'LT',
    };
    const [stored] = await privacy.encryptCustomers([{ streamId, customer: plain }]);
    expect((await privacy.decrypt(streamId, stored!)).record).toEqual(plain);

    // Another process erases the key; this one still has it cached.
    await new DataKeyStore({ db, keks }).erase(streamId);
    expect((await privacy.decrypt(streamId, stored!)).record.firstName).toBe('Anna');

    // The pull endpoint's path, for event data carrying the record and hits.
    const [hit] = await privacy.encryptHits(streamId, [{ entryId: 'E-1', matchedName: 'Anna', score: 0.9 }]);
    const event = await privacy.revealEventData(streamId, { customer: stored, hits: [hit] }, true);
    expect(event).toEqual({
      erased: true,
      data: {
        customer: {
          customerExtId: 'C-ERASED',
          firstName: null,
          nationalCode: null,
          citizenshipCountry: 'LT',
        },
        hits: [{ entryId: 'E-1', matchedName: null, score: 0.9 }],
      },
    });

    const shown = privacy.erased(streamId, stored!);
    expect(shown.erased).toBe(true);
    expect(shown.record).toEqual({
      customerExtId: 'C-ERASED',
      firstName: null,
      nationalCode: null,
      citizenshipCountry: 'LT',
    });
    // The cached key is gone too: a plain decrypt now finds no key either.
    expect((await privacy.decrypt(streamId, stored!)).record.firstName).toBeNull();
  });

  it('after an erasure seen in the log, decrypts nothing of that key generation, whatever is still cached or stored; a new relationship decrypts', async () => {
    // The callback service's path: it consumes PersonalDataErased before the projector has deleted the key.
    const keks = KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-1'));
    const privacy = CustomerPrivacy.withKeys(new DataKeyStore({ db, keks, cache: { ttlMs: 600_000 } }));
    const streamId = streamKey('DEMO', 'C-NOTED');
    const plain = { customerExtId: 'C-NOTED', firstName: 'Jonas', citizenshipCountry: 'LT' };
    const [stored] = await privacy.encryptCustomers([{ streamId, customer: plain }]);
    const [hit] = await privacy.encryptHits(streamId, [{ entryId: 'E-2', matchedName: 'Jonas', score: 0.8 }]);
    expect((await privacy.decrypt(streamId, stored!)).record).toEqual(plain);
    const first = (await new DataKeyStore({ db, keks }).currentKey(streamId))!.keyId;

    privacy.noteErasure(streamId, first);
    // The key is still in the store and was cached here: neither is used for that generation.
    expect(await new DataKeyStore({ db, keks }).currentKey(streamId)).toBeDefined();
    expect(await privacy.revealEventData(streamId, { customer: stored, hits: [hit] })).toEqual({
      erased: true,
      data: {
        customer: { customerExtId: 'C-NOTED', firstName: null, citizenshipCountry: 'LT' },
        hits: [{ entryId: 'E-2', matchedName: null, score: 0.8 }],
      },
    });

    // The projector deletes the key; the customer is imported again: a new key generation, readable.
    await new DataKeyStore({ db, keks }).erase(streamId);
    const again = { customerExtId: 'C-NOTED', firstName: 'Jonas', citizenshipCountry: 'LV' };
    const [restored] = await CustomerPrivacy.withKeys(new DataKeyStore({ db, keks })).encryptCustomers([
      { streamId, customer: again },
    ]);
    expect((await privacy.decrypt(streamId, restored!)).record).toEqual(again);
    expect((await privacy.decrypt(streamId, stored!)).record.firstName).toBeNull();
  });
});
