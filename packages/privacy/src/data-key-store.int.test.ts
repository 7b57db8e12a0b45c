import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { DataKeyStore, eraseDataKey, type RotationReport } from './data-key-store';
import { CustomerPrivacy } from './customer-privacy';
import { DataKeyUnwrapError } from './errors';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { PersonalDataCipher } from './personal-data';
import { CustomerPersonalFields } from './personal-fields';

// The key store on the real local store (FerretDB v1 via the stack's MONGODB_URI; MongoDB elsewhere).
describe('DataKeyStore (data_keys on the real store)', () => {
  let client: MongoClient;
  let db: Db;
  const first = KeyEncryptionKeys.generateDocument('kek-1');
  const keks = KeyEncryptionKeys.fromDocument(first);

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
  });
  beforeEach(() => {
    db = client.db(`crs_it_privacy_${randomUUID().slice(0, 8)}`);
  });
  afterEach(async () => {
    await db.dropDatabase();
  });
  afterAll(async () => {
    await client.close();
  });

  /** A key store on a client of its own whose `find` filters are recorded (another process's reader). */
  async function watchedReader(): Promise<{ watched: MongoClient; finds: unknown[]; reader: DataKeyStore }> {
    const watched = await new MongoClient(process.env.MONGODB_URI!, { monitorCommands: true }).connect();
    const finds: unknown[] = [];
    watched.on('commandStarted', (e) => {
      if (e.commandName === 'find') finds.push(e.command.filter);
    });
    return { watched, finds, reader: new DataKeyStore({ db: watched.db(db.databaseName), keks }) };
  }

  it('creates one key per customer, idempotently under concurrency, and stores it only wrapped', async () => {
    // Separate stores stand for separate processes: no cache or in-process sharing between them.
    const stores = Array.from({ length: 4 }, () => new DataKeyStore({ db, keks }));
    const keys = await Promise.all(
      Array.from({ length: 12 }, (_, i) => stores[i % stores.length]!.keyFor('BU1:C-1')),
    );
    expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
    expect(new Set(keys.map((k) => k.key.toString('hex'))).size).toBe(1);

    const docs = await db.collection('data_keys').find({}).toArray();
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ _id: 'BU1:C-1', keyId: keys[0]!.keyId, kek: 'kek-1' });
    const stored = JSON.stringify(docs[0]);
    expect(stored).not.toContain(keys[0]!.key.toString('base64'));
    expect(stored).not.toContain(keys[0]!.key.toString('base64url'));
    expect(stored).not.toContain(keys[0]!.key.toString('hex'));

    const fresh = new DataKeyStore({ db, keks });
    expect((await fresh.currentKey('BU1:C-1'))?.key).toEqual(keys[0]!.key);
    expect(await fresh.currentKey('BU1:C-2')).toBeUndefined();
  });

  it('erases: every value of the customer reads as erased (null), idempotently; other customers are untouched', async () => {
    const store = new DataKeyStore({ db, keks });
    const cipher = new PersonalDataCipher(store);
    const record = { customerExtId: 'C-1', firstName: 'Anna', nationalCode: '80022912345' };
    const anna = await cipher.encryptFields('BU1:C-1', record, CustomerPersonalFields);
    const bob = await cipher.encryptFields('BU1:C-2', { firstName: 'Bob' }, CustomerPersonalFields);

    expect(await store.erase('BU1:C-1')).toEqual({ erased: true, keyId: expect.any(String) });
    expect(await store.erase('BU1:C-1')).toEqual({ erased: false });
    expect(await db.collection('data_keys').findOne({ _id: 'BU1:C-1' as never })).toBeNull();

    const after = await cipher.decryptFields('BU1:C-1', anna);
    expect(after).toEqual({
      record: { customerExtId: 'C-1', firstName: null, nationalCode: null },
      erased: true,
      erasedPaths: ['firstName', 'nationalCode'],
      invalidPaths: [],
    });
    expect((await cipher.decryptFields('BU1:C-2', bob)).record).toEqual({ firstName: 'Bob' });

    // A customer imported again after the erasure gets a new key; the erased values stay erased.
    const again = await cipher.encryptFields('BU1:C-1', { firstName: 'Anna' }, ['firstName']);
    expect((await cipher.decryptFields('BU1:C-1', again)).record).toEqual({ firstName: 'Anna' });
    expect((await cipher.decryptFields('BU1:C-1', anna)).record.firstName).toBeNull();
  });

  it("another process's cached key outlives an erasure only until its TTL ends", async () => {
    let now = 0;
    const other = new DataKeyStore({ db, keks, cache: { ttlMs: 60_000, now: () => now } });
    const cipher = new PersonalDataCipher(other);
    const anna = await cipher.encryptFields('BU1:C-1', { firstName: 'Anna' }, ['firstName']);

    await new DataKeyStore({ db, keks }).erase('BU1:C-1');
    now = 59_999;
    expect((await cipher.decryptFields('BU1:C-1', anna)).record.firstName).toBe('Anna');
    now = 60_000;
    expect((await cipher.decryptFields('BU1:C-1', anna)).record.firstName).toBeNull();
  });

  it('rotates the KEK: resumable bounded runs rewrap every key, with progress; values stay readable', async () => {
    const before = new DataKeyStore({ db, keks });
    const cipher = new PersonalDataCipher(before);
    const customers = Array.from({ length: 7 }, (_, i) => `BU1:C-${i}`);
    const records = await Promise.all(
      customers.map((id) => cipher.encryptFields(id, { firstName: `Name ${id}` }, ['firstName'])),
    );

    const second = KeyEncryptionKeys.generateDocument('kek-2', first);
    const during = new DataKeyStore({ db, keks: KeyEncryptionKeys.fromDocument(second) });
    const progress: RotationReport[] = [];
    const partial = await during.rotate({ batchSize: 2, maxKeys: 3, onProgress: (p) => progress.push(p) });
    expect(partial).toMatchObject({ kek: 'kek-2', done: false, scanned: 3, rewrapped: 3 });
    expect(progress.map((p) => p.scanned)).toEqual([2, 3]);

    // A new key made meanwhile is wrapped with the new active KEK already.
    await during.keyFor('BU1:C-new');
    const rest = await during.rotate({ batchSize: 2, onProgress: (p) => progress.push(p) });
    expect(rest).toMatchObject({ done: true, scanned: 8, rewrapped: 7, alreadyCurrent: 1, vanished: 0 });
    const keksInUse = (await db.collection('data_keys').find({}).toArray()).map((d) => d.kek as string);
    expect(new Set(keksInUse)).toEqual(new Set(['kek-2']));

    // The next pass starts afresh and finds nothing left to rewrap: kek-1 may leave the key set.
    expect(await during.rotate()).toMatchObject({ done: true, rewrapped: 0, alreadyCurrent: 8 });
    const after = new DataKeyStore({
      db,
      keks: KeyEncryptionKeys.fromDocument({
        active: 'kek-2',
        keys: second.keys.filter((k) => k.id === 'kek-2'),
      }),
    });
    const readAfter = new PersonalDataCipher(after);
    for (const [i, id] of customers.entries()) {
      expect((await readAfter.decryptFields(id, records[i]!)).record).toEqual({ firstName: `Name ${id}` });
    }
  });

  it('fails loudly, not as an erasure, when a key needs a KEK the process does not have', async () => {
    await new DataKeyStore({ db, keks }).keyFor('BU1:C-1');
    const other = new DataKeyStore({
      db,
      keks: KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-9')),
    });
    await expect(other.currentKey('BU1:C-1')).rejects.toBeInstanceOf(DataKeyUnwrapError);
  });

  it('creates the keys of a batch with one insert, and reads the keys customers already have', async () => {
    const other = new DataKeyStore({ db, keks });
    const existing = await other.keyFor('BU1:OLD');
    const store = new DataKeyStore({ db, keks });
    const ids = ['BU1:OLD', ...Array.from({ length: 300 }, (_, i) => `BU1:N-${i}`), 'BU1:N-1'];
    const keys = await store.keysFor(ids);
    expect(keys.size).toBe(301);
    expect(keys.get('BU1:OLD')).toEqual(existing);
    expect(await db.collection('data_keys').countDocuments({})).toBe(301);
    // Another process reads the same keys the batch created.
    expect((await other.currentKey('BU1:N-7'))?.keyId).toBe(keys.get('BU1:N-7')!.keyId);
    // Concurrent batches over the same customers agree on one key each.
    const [a, b] = await Promise.all([
      new DataKeyStore({ db, keks }).keysFor(['BU1:X', 'BU1:Y']),
      new DataKeyStore({ db, keks }).keysFor(['BU1:Y', 'BU1:X']),
    ]);
    expect(a.get('BU1:X')).toEqual(b.get('BU1:X'));
    expect(a.get('BU1:Y')).toEqual(b.get('BU1:Y'));
  });

  it('reads the current keys of a batch of customers with one find per 500: cached, stored and absent ones', async () => {
    const writer = new DataKeyStore({ db, keks });
    const created = await writer.keysFor(Array.from({ length: 620 }, (_, i) => `BU1:K-${i}`));
    await writer.erase('BU1:K-3');
    const { watched, finds, reader } = await watchedReader();
    try {
      await reader.currentKey('BU1:K-0'); // cached before the batch read
      finds.length = 0;
      const ids = [...Array.from({ length: 620 }, (_, i) => `BU1:K-${i}`), 'BU1:NEVER', 'BU1:K-5'];
      const keys = await reader.currentKeys(ids);
      // 619 read from the store (K-0 cached) in two finds by `_id` list; the erased and the unknown absent.
      expect(finds).toHaveLength(2);
      expect(keys.size).toBe(619);
      expect(keys.has('BU1:K-3')).toBe(false);
      expect(keys.has('BU1:NEVER')).toBe(false);
      expect(keys.get('BU1:K-611')).toEqual(created.get('BU1:K-611'));
      // The keys read are cached: decrypting afterwards reads nothing more.
      finds.length = 0;
      expect(await reader.currentKey('BU1:K-611')).toEqual(created.get('BU1:K-611'));
      expect(finds).toHaveLength(0);
      // Absence is not cached: a key created a moment later is found at once.
      await writer.keyFor('BU1:NEVER');
      expect(await reader.currentKey('BU1:NEVER')).toBeDefined();
    } finally {
      await watched.close();
    }
  });

  it('shares a read under way: concurrent readers of the same customers read the store once', async () => {
    const writer = new DataKeyStore({ db, keks });
    const created = await writer.keysFor(['BU1:S-1', 'BU1:S-2', 'BU1:S-3']);
    const { watched, finds, reader } = await watchedReader();
    try {
      // Two consumers of one process warm the keys of the same batch, a third decrypts one customer.
      const [a, b, one] = await Promise.all([
        reader.currentKeys(['BU1:S-1', 'BU1:S-2', 'BU1:ABSENT']),
        reader.currentKeys(['BU1:S-2', 'BU1:S-1', 'BU1:ABSENT']),
        reader.currentKey('BU1:S-2'),
      ]);
      expect(finds).toHaveLength(1);
      expect(a.get('BU1:S-1')).toEqual(created.get('BU1:S-1'));
      expect(b.get('BU1:S-2')).toEqual(created.get('BU1:S-2'));
      expect(one).toEqual(created.get('BU1:S-2'));
      expect(a.has('BU1:ABSENT') || b.has('BU1:ABSENT')).toBe(false);
      // A customer outside the read under way is read by itself; absence is still not cached.
      finds.length = 0;
      const [c, absent] = await Promise.all([
        reader.currentKeys(['BU1:S-3', 'BU1:S-1']),
        reader.currentKey('BU1:ABSENT'),
      ]);
      expect(c.get('BU1:S-3')).toEqual(created.get('BU1:S-3'));
      expect(absent).toBeUndefined();
      expect(finds).toHaveLength(2);
      // An erasure in this process while a read is under way: the key that read found is not kept.
      reader.forgetCached('BU1:S-3');
      const pending = reader.currentKey('BU1:S-3');
      await reader.erase('BU1:S-3');
      await pending;
      expect(await reader.currentKey('BU1:S-3')).toBeUndefined();
    } finally {
      await watched.close();
    }
  });

  it('erases only the named key generation: a replayed erasure leaves a later relationship key alone', async () => {
    const store = new DataKeyStore({ db, keks, cache: { maxEntries: 0 } });
    const first = await store.keyFor('BU1:C-5');
    expect(await eraseDataKey(db, 'BU1:C-5', first.keyId)).toBe(true);
    const second = await store.keyFor('BU1:C-5');
    expect(second.keyId).not.toBe(first.keyId);
    expect(await eraseDataKey(db, 'BU1:C-5', first.keyId)).toBe(false);
    expect((await store.currentKey('BU1:C-5'))?.keyId).toBe(second.keyId);
    // The store's own erase and a consumer's applyErasure keep to the generation the same way.
    expect(await store.erase('BU1:C-5', first.keyId)).toEqual({ erased: false });
    const privacy = CustomerPrivacy.withKeys(store);
    await privacy.applyErasure('BU1:C-5', first.keyId);
    expect((await store.currentKey('BU1:C-5'))?.keyId).toBe(second.keyId);
    await privacy.applyErasure('BU1:C-5', second.keyId);
    expect(await store.currentKey('BU1:C-5')).toBeUndefined();
    expect(await store.erase('BU1:C-5', second.keyId)).toEqual({ erased: false });
  });

  it('CustomerPrivacy: encrypted customers and hits read back; after erasure they read as null, flagged erased', async () => {
    const privacy = CustomerPrivacy.withKeys(new DataKeyStore({ db, keks, cache: { maxEntries: 0 } }));
    const [customer] = await privacy.encryptCustomers([
      { streamId: 'BU1:C-6', customer: { customerExtId: 'C-6', firstName: 'Ona', birthDate: '1970-01-02' } },
    ]);
    // Sealed (decision 0054): placeholders in place, the values in one ciphertext.
    expect(customer).toMatchObject({
      firstName: 'crs:sealed:0',
      birthDate: 'crs:sealed:0',
      sealedPersonalData: expect.stringMatching(/^crs:enc:1:/),
    });
    const hits = await privacy.encryptHits('BU1:C-6', [
      { entryId: '9', matchedName: 'ONA X', names: ['ONA X'], score: 1 },
    ]);
    const data = { requestId: 'r', customer, hits };
    expect((await privacy.revealEventData('BU1:C-6', data)).data).toEqual({
      requestId: 'r',
      customer: { customerExtId: 'C-6', firstName: 'Ona', birthDate: '1970-01-02' },
      hits: [{ entryId: '9', matchedName: 'ONA X', names: ['ONA X'], score: 1 }],
    });
    await privacy.erase('BU1:C-6', undefined);
    expect(await privacy.revealEventData('BU1:C-6', data)).toEqual({
      erased: true,
      data: {
        requestId: 'r',
        customer: { customerExtId: 'C-6', firstName: null, birthDate: null },
        hits: [{ entryId: '9', matchedName: null, names: [null], score: 1 }],
      },
    });
    // A process without the key set refuses ciphertext rather than passing it on as a name.
    await expect(CustomerPrivacy.disabled().decrypt('BU1:C-6', customer)).rejects.toMatchObject({
      code: 'PRIVACY_KEYS_MISSING',
    });
  });
});
