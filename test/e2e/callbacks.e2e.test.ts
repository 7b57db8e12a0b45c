import { verifyCallback } from '@crs/auth';
import { OwnedCollections, communicationKey } from '@crs/store';
import { TestCluster, TestReceiver, callbackJwks, eventually, localToken, uniqueId } from '@crs/testing';

/** Callbacks that always arrive: retries, dead letters, redelivery and isolation between business units. */
describe('callbacks', () => {
  const cluster = new TestCluster('e2e-callbacks', {
    CALLBACK_MAX_ATTEMPTS: '4',
    CALLBACK_BACKOFF_BASE_MS: '150',
    CALLBACK_BACKOFF_MAX_MS: '600',
  });
  const demo = new TestReceiver();
  const other = new TestReceiver();
  let token: string;
  let demoPort = 0;
  let otherPort = 0;

  beforeAll(async () => {
    demoPort = await demo.start(0);
    otherPort = await other.start(0);
    cluster.routeCallbacks({
      DEMO: `http://127.0.0.1:${demoPort}/cb`,
      OTHER: `http://127.0.0.1:${otherPort}/cb`,
    });
    await cluster.dropDatabase();
    await cluster.start();
    token = await localToken({ businessUnits: ['DEMO', 'OTHER'] });
  });
  afterAll(async () => {
    await cluster.stop();
    await demo.stop();
    await other.stop();
  });

  const importCustomer = async (bu: string, comm = uniqueId('comm')) => {
    const res = await cluster.fetch('/core-ws-rest/customer', {
      method: 'POST',
      token,
      body: JSON.stringify({
        communicationNumber: comm,
        businessUnit: bu,
        action: 'CREATE',
        sourceOfRiskLevel: 'IMPORT',
        riskLevel: 'MEDIUM',
        customerStatus: 'ACTIVE',
        entityType: 'ORGANIZATION',
        customerExtId: uniqueId('org'),
        title: 'Example Ltd',
      }),
    });
    expect(res.status).toBe(200);
    return comm;
  };
  const deliveries = async (bu: string, comm: string) =>
    (
      (await (
        await cluster.fetch(`/api/callbacks/deliveries?businessUnit=${bu}&communicationNumber=${comm}`, {
          token,
        })
      ).json()) as {
        deliveries: { eventId: string; status: string; attempts: number; log: { status: number | null }[] }[];
      }
    ).deliveries;

  it('a receiver that fails for a while still gets every callback once per ce-id, in order, signed', async () => {
    demo.mode = { kind: 'fail', status: 500 };
    const comms = [await importCustomer('DEMO'), await importCustomer('DEMO'), await importCustomer('DEMO')];
    await eventually(
      async () => comms.every((c) => demo.received.some((r) => r.headers['ce-source'] === c)),
      60000,
      'failed attempts',
    );
    demo.mode = { kind: 'ok' };
    for (const comm of comms) {
      const got = await eventually(
        async () => {
          const a = demo.acceptedFor(comm);
          return a.length >= 3 ? a : undefined;
        },
        60000,
        'callbacks after recovery',
      );
      const ids = got.map((c) => String(c.headers['ce-id']));
      expect(new Set(ids).size).toBe(ids.length);
      // Order per customer: event ids end in their position within the decision.
      expect(ids.map((id) => Number(id.split('.').pop()))).toEqual([0, 1, 2]);
      // The receiver's 2xx comes before the service writes "delivered": wait for the log to catch up.
      const log = await eventually(
        async () => {
          const d = await deliveries('DEMO', comm);
          return d.length === 3 && d.every((x) => x.status === 'delivered') ? d : undefined;
        },
        30000,
        'delivery log marked delivered',
      );
      expect(log.map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
      // The first event was tried while the receiver failed; later ones waited behind it (order per customer).
      expect(log.find((d) => d.eventId.endsWith('.0'))!.log[0]!.status).toBe(500);
    }
    const jwks = await callbackJwks();
    const any = demo.accepted[0]!;
    await expect(
      verifyCallback({
        jwks: jwks as never,
        headers: any.headers,
        body: any.body,
        now: Math.floor(Date.now() / 1000),
      }),
    ).resolves.toBeUndefined();
  });

  it('a receiver that never recovers leads to a dead letter, and a redelivery then succeeds', async () => {
    demo.mode = { kind: 'fail', status: 503 };
    const comm = await importCustomer('DEMO');
    const dead = await eventually(
      async () => {
        const d = await deliveries('DEMO', comm);
        return d.length === 3 && d.every((x) => x.status === 'dead') ? d : undefined;
      },
      90000,
      'dead letters',
    );
    expect(dead.every((d) => d.attempts === 4)).toBe(true);
    expect(demo.acceptedFor(comm)).toHaveLength(0);
    // The log is keyed by communication (decision 0066): the log and redelivery read it by that _id prefix.
    const stored = await (await cluster.ownDb('callback'))
      .collection(OwnedCollections.deliveries)
      .find({ communicationNumber: comm })
      .toArray();
    expect(stored).toHaveLength(3);
    for (const d of stored) expect(String(d._id).startsWith(communicationKey(comm))).toBe(true);

    demo.mode = { kind: 'ok' };
    const res = await cluster.fetch('/api/callbacks/redeliver', {
      method: 'POST',
      token,
      body: JSON.stringify({ businessUnit: 'DEMO', communicationNumber: comm }),
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ requeued: 3 });
    await eventually(async () => demo.acceptedFor(comm).length === 3, 60000, 'redelivered callbacks');
    await eventually(
      async () => (await deliveries('DEMO', comm)).every((d) => d.status === 'delivered'),
      30000,
      'redeliveries logged as delivered',
    );
  });

  it('a slow receiver of one business unit does not delay another business unit', async () => {
    demo.mode = { kind: 'ok' };
    other.mode = { kind: 'slow', delayMs: 2500 };
    const slowComms: string[] = [];
    for (let i = 0; i < 8; i++) slowComms.push(await importCustomer('OTHER'));
    await eventually(async () => other.received.length > 0, 60000, 'slow receiver busy');
    const fast = await importCustomer('DEMO');
    await eventually(async () => demo.acceptedFor(fast).length >= 3, 60000, 'fast business unit callbacks');
    expect(new Set(demo.acceptedFor(fast).map((c) => c.headers['ce-id'])).size).toBe(3);
    // While DEMO's callbacks all arrived, OTHER's slow receiver had not yet taken all of its own.
    expect(slowComms.filter((c) => other.acceptedFor(c).length === 3).length).toBeLessThan(slowComms.length);
  });

  it('redelivery and the delivery log are limited to the business units of the token', async () => {
    const demoOnly = await localToken({ businessUnits: ['DEMO'] });
    const res = await cluster.fetch('/api/callbacks/redeliver', {
      method: 'POST',
      token: demoOnly,
      body: JSON.stringify({ businessUnit: 'OTHER', communicationNumber: 'x' }),
    });
    expect(res.status).toBe(403);
    const log = await cluster.fetch('/api/callbacks/deliveries?businessUnit=OTHER&communicationNumber=x', {
      token: demoOnly,
    });
    expect(log.status).toBe(403);
    const noScope = await localToken({ businessUnits: ['DEMO'], scopes: ['customers:read'] });
    expect(
      (
        await cluster.fetch('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=x', {
          token: noScope,
        })
      ).status,
    ).toBe(403);
  });
  it("after a routing change and a restart, a redelivered callback goes to the endpoint's new URL", async () => {
    demo.mode = { kind: 'fail', status: 503 };
    const comm = await importCustomer('DEMO');
    await eventually(
      async () => {
        const d = await deliveries('DEMO', comm);
        return d.length === 3 && d.every((x) => x.status === 'dead');
      },
      90000,
      'dead letters at the old URL',
    );
    const moved = new TestReceiver();
    const movedPort = await moved.start(0);
    try {
      await cluster.stopService('callback');
      cluster.routeCallbacks({
        DEMO: `http://127.0.0.1:${movedPort}/cb`,
        OTHER: `http://127.0.0.1:${otherPort}/cb`,
      });
      await cluster.startService('callback');
      const res = await cluster.fetch('/api/callbacks/redeliver', {
        method: 'POST',
        token,
        body: JSON.stringify({ businessUnit: 'DEMO', communicationNumber: comm }),
      });
      expect(await res.json()).toEqual({ requeued: 3 });
      await eventually(
        async () => moved.acceptedFor(comm).length === 3,
        60000,
        'redelivered callbacks at the new URL',
      );
      expect(demo.acceptedFor(comm)).toHaveLength(0);
    } finally {
      await cluster.stopService('callback');
      cluster.routeCallbacks({
        DEMO: `http://127.0.0.1:${demoPort}/cb`,
        OTHER: `http://127.0.0.1:${otherPort}/cb`,
      });
      await cluster.startService('callback');
      demo.mode = { kind: 'ok' };
      await moved.stop();
    }
  });
});
