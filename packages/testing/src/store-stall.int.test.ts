import { randomUUID } from 'node:crypto';
import { connectMongo, isDuplicateKeyOnly } from '@crs/store';
import { TcpProxy } from './tcp-proxy';
import { mongoHosts } from './stack-env';

/**
 * The store stops reading and answering (a network stall, a store shutting down) while a command larger
 * than the socket buffers is still being written: the driver's monitor times out and interrupts the
 * connections in use, and the write must fail so that its caller retries. Unpatched, mongodb 6.21 left
 * such a write waiting for a 'drain' that never came, for good: the fault suite's projector stayed silent
 * for ten minutes after a database outage (decision 0087, patches/mongodb@6.21.0.patch).
 */
describe('a store client whose store stalls in the middle of a large write', () => {
  const proxy = new TcpProxy(mongoHosts(process.env.MONGODB_URI!)[0]!);
  const dbName = `crs_it_stall_${randomUUID().slice(0, 8)}`;

  afterAll(async () => {
    await proxy.stop();
    const direct = await connectMongo({ MONGODB_URI: process.env.MONGODB_URI!, MONGODB_DB: dbName });
    await direct.db.dropDatabase().catch(() => undefined);
    await direct.client.close();
  });

  it('fails the write instead of waiting forever, and writes it once the store answers again', async () => {
    const address = await proxy.start();
    // The monitor looks every half second; it gives up on an unanswered look after connectTimeoutMS (5 s).
    const mongo = await connectMongo({
      MONGODB_URI: `mongodb://${address}/?heartbeatFrequencyMS=500`,
      MONGODB_DB: dbName,
    });
    try {
      const items = mongo.db.collection<{ _id: string; pad: string }>('items');
      await items.insertOne({ _id: 'before', pad: '' });
      // About 8 MB in one command: far more than the sockets between the client and the store hold.
      const docs = Array.from({ length: 500 }, (_, i) => ({ _id: `big-${i}`, pad: 'x'.repeat(16_000) }));
      proxy.freeze();
      const outcome = await Promise.race([
        items.insertMany(docs, { ordered: false }).then(
          () => 'written',
          (err: Error) => err.name,
        ),
        new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 60 s'), 60_000)),
      ]);
      expect(outcome).toBe('MongoBulkWriteError');
      proxy.thaw();
      // The caller's retry (the consumers retry a failed chunk whole): once the monitor sees the store again.
      let written = false;
      for (const until = Date.now() + 60_000; !written && Date.now() < until; ) {
        written = await items.insertMany(docs, { ordered: false }).then(
          () => true,
          (err: unknown) => isDuplicateKeyOnly(err, docs.length),
        );
        if (!written) await new Promise((r) => setTimeout(r, 500));
      }
      expect(written).toBe(true);
      expect(await items.countDocuments({ _id: { $regex: '^big-' } })).toBe(500);
    } finally {
      proxy.thaw();
      await mongo.client.close(true);
    }
  }, 180_000);
});
