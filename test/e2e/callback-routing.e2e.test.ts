import { TestCluster, TestReceiver, eventually, localToken, uniqueId } from '@crs/testing';

interface PulledEvent {
  id: string;
  type: string;
  source: string;
}

/**
 * Routing by event type (docs/callbacks.md): one business unit, two endpoints, one taking only the
 * screening event types and one the rest. Each receiver gets exactly its own types, each event once.
 */
describe('callback routing by event type', () => {
  const cluster = new TestCluster('e2e-cb-routing');
  const screeningReceiver = new TestReceiver();
  const restReceiver = new TestReceiver();
  let token: string;

  beforeAll(async () => {
    const screeningPort = await screeningReceiver.start(0);
    const restPort = await restReceiver.start(0);
    cluster.setEnv({
      CALLBACK_ENDPOINTS: JSON.stringify({
        endpoints: [
          {
            id: 'demo-screening',
            businessUnit: 'DEMO',
            url: `http://127.0.0.1:${screeningPort}/screening`,
            eventTypes: ['com.crs.screening.*'],
          },
          {
            id: 'demo-rest',
            businessUnit: 'DEMO',
            url: `http://127.0.0.1:${restPort}/rest`,
            eventTypes: ['com.crs.risk-assessment.*', 'com.crs.customer.*'],
          },
        ],
      }),
    });
    await cluster.dropDatabase();
    await cluster.start(['customer', 'projector', 'callback', 'evaluation', 'screening', 'ingress']);
    token = await localToken();
  });

  afterAll(async () => {
    await cluster.stop();
    await screeningReceiver.stop();
    await restReceiver.stop();
  });

  const isScreening = (type: string) => type.startsWith('com.crs.screening.');
  const pulled = async (comm: string): Promise<PulledEvent[]> => {
    const res = await cluster.fetch(
      `/api/integration-services/v1/communications-events/${comm}?businessUnit=DEMO`,
      { token },
    );
    return res.status === 200 ? ((await res.json()) as { events: PulledEvent[] }).events : [];
  };
  const idsOf = (receiver: TestReceiver, comm: string) =>
    receiver.acceptedFor(comm).map((c) => String(c.headers['ce-id']));
  const typesOf = (receiver: TestReceiver, comm: string) =>
    new Set(receiver.acceptedFor(comm).map((c) => String(c.headers['ce-type'])));

  it('sends screening types only to the screening endpoint and every other type only to the other endpoint', async () => {
    const comm = uniqueId('comm');
    const res = await cluster.fetch('/core-ws-rest/customer', {
      method: 'POST',
      token,
      body: JSON.stringify({
        communicationNumber: comm,
        requester: 'e2e',
        businessUnit: 'DEMO',
        action: 'CREATE',
        sourceOfRiskLevel: 'IMPORT',
        riskLevel: 'LOW',
        customerStatus: 'ACTIVE',
        riskManagementCategory: 'IND',
        entityType: 'INDIVIDUAL',
        customerExtId: uniqueId('cust'),
        firstName: 'Routing',
        lastName: 'Example',
        initializeScreeningProcesses: ['SANCTIONS', 'PEP'],
      }),
    });
    expect(res.status).toBe(200);

    // Both kinds of events happened: screening per list and the customer/risk outcomes.
    const events = await eventually(
      async () => {
        const e = await pulled(comm);
        const types = new Set(e.map((x) => x.type));
        return types.has('com.crs.screening.sanctions.completed') &&
          types.has('com.crs.screening.pep.completed') &&
          e.some((x) => !isScreening(x.type))
          ? e
          : undefined;
      },
      120000,
      'screening and customer events of the communication',
    );
    // Every event of the communication reached the receiver its type is routed to.
    await eventually(
      async () => {
        const all = await pulled(comm);
        const screeningIds = new Set(idsOf(screeningReceiver, comm));
        const restIds = new Set(idsOf(restReceiver, comm));
        return (
          all.length >= events.length &&
          all.every((e) => (isScreening(e.type) ? screeningIds : restIds).has(e.id))
        );
      },
      90000,
      'every event delivered to its endpoint',
    );

    const all = await pulled(comm);
    const screeningTypes = typesOf(screeningReceiver, comm);
    const restTypes = typesOf(restReceiver, comm);
    expect([...screeningTypes].every(isScreening)).toBe(true);
    expect([...restTypes].some(isScreening)).toBe(false);
    expect(screeningTypes).toEqual(new Set(all.filter((e) => isScreening(e.type)).map((e) => e.type)));
    expect(restTypes).toEqual(new Set(all.filter((e) => !isScreening(e.type)).map((e) => e.type)));
    expect(restTypes.has('com.crs.customer.updated')).toBe(true);

    // Exactly once per ce-id, and no event at both endpoints.
    const screeningIds = idsOf(screeningReceiver, comm);
    const restIds = idsOf(restReceiver, comm);
    expect(new Set(screeningIds).size).toBe(screeningIds.length);
    expect(new Set(restIds).size).toBe(restIds.length);
    expect(screeningIds.filter((id) => restIds.includes(id))).toEqual([]);
    expect(new Set([...screeningIds, ...restIds])).toEqual(new Set(all.map((e) => e.id)));

    // The delivery log names the endpoint each event went to.
    const log = (await (
      await cluster.fetch(`/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=${comm}`, {
        token,
      })
    ).json()) as {
      deliveries: { eventId: string; type: string; endpointId: string }[];
    };
    for (const d of log.deliveries)
      expect(d.endpointId).toBe(isScreening(d.type) ? 'demo-screening' : 'demo-rest');
    expect(new Set(log.deliveries.map((d) => d.eventId))).toEqual(new Set(all.map((e) => e.id)));
  });
});
