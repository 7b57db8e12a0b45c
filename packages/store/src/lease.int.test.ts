import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { Lease } from './lease';

/** Against the real MongoDB-compatible store (FerretDB locally); the clock is the test's, so expiry needs no waiting. */
describe('Lease', () => {
  let client: MongoClient;
  let db: Db;
  let t = Date.parse('2030-01-01T00:00:00Z');
  const clock = () => new Date(t);
  const lease = (owner: string, id = 'job') =>
    new Lease<{ step: number; due: boolean }>({
      db,
      collection: 'leases',
      id,
      owner,
      leaseMs: 10_000,
      clock,
    });

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_lease_${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
  });

  it('is acquired, renewed by its owner, refused to another owner while valid, taken over after expiry and released', async () => {
    const a = lease('a');
    const b = lease('b');
    expect(await a.create({ step: 0, due: true })).toBe(true);
    expect(await b.create({ step: 9, due: false })).toBe(false);
    expect(await a.read()).toEqual({ _id: 'job', step: 0, due: true, owner: null, leaseUntil: new Date(0) });

    // Acquire: free, so taken; the holder's fields are written with it.
    expect(await a.acquire({ set: { step: 1 } })).toBe(true);
    expect(await a.read()).toMatchObject({ owner: 'a', leaseUntil: new Date(t + 10_000), step: 1 });
    expect(await a.heldByAnother()).toBe(false);

    // Renew by the owner, from the clock's now.
    t += 5_000;
    expect(await a.renew({ step: 2 })).toBe(true);
    expect(await a.read()).toMatchObject({ owner: 'a', leaseUntil: new Date(t + 10_000), step: 2 });
    expect(await a.acquire()).toBe(true); // the holder may take it again

    // Refused to another owner while valid (to the last millisecond), and that owner cannot renew or release it.
    t += 10_000;
    expect(await b.heldByAnother()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(await b.renew()).toBe(false);
    expect(await b.write({ step: 7 })).toBe(false);
    expect(await b.release()).toBe(false);
    expect(await a.read()).toMatchObject({ owner: 'a', step: 2 });

    // Taken over after expiry; the old owner has lost it.
    t += 1;
    expect(await b.heldByAnother()).toBe(false);
    expect(await b.acquire({ at: clock(), set: { step: 3 } })).toBe(true);
    expect(await a.heldByAnother()).toBe(true);
    expect(await a.renew()).toBe(false);
    expect(await a.release()).toBe(false);
    expect(await b.read()).toMatchObject({ owner: 'b', leaseUntil: new Date(t + 10_000), step: 3 });

    // Released by its owner: free at once for anyone.
    expect(await b.write({ step: 4 })).toBe(true);
    expect(await b.release({ due: false })).toBe(true);
    expect(await b.read()).toEqual({ _id: 'job', step: 4, due: false, owner: null, leaseUntil: new Date(0) });
    expect(await a.heldByAnother()).toBe(false);
    expect(await a.acquire()).toBe(true);
  });

  it('is taken only where the holder says, and not at all without its document', async () => {
    const a = lease('a', 'conditional');
    const b = lease('b', 'conditional');
    expect(await a.acquire()).toBe(false);
    await a.create({ step: 0, due: false });
    expect(await a.acquire({ where: { due: true } })).toBe(false);
    expect(await a.read()).toMatchObject({ owner: null });
    expect(await a.acquire({ where: { due: false } })).toBe(true);
    // A renewal by the owner after expiry holds as long as nobody took the lease over.
    t += 60_000;
    expect(await a.renew()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(a.until(new Date(0))).toEqual(new Date(10_000));
  });
});
