import { TestCluster, TestReceiver, eventually, localToken, uniqueId } from '@crs/testing';

/** Prometheus metrics of running services move with traffic (what the dashboards and alerts read). */
describe('metrics', () => {
  const cluster = new TestCluster('e2e-metrics');
  const receiver = new TestReceiver();
  let token: string;

  beforeAll(async () => {
    const port = await receiver.start(0);
    cluster.routeCallbacks({ DEMO: `http://127.0.0.1:${port}/cb` });
    await cluster.start(['customer', 'projector', 'callback', 'evaluation', 'screening', 'ingress']);
    token = await localToken();
  });
  afterAll(async () => {
    await cluster.stop();
    await receiver.stop();
  });

  const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  /** Sum of a sample's values over all label sets matching `labels` (a substring of the label list). */
  const sample = (text: string, name: string, labels = ''): number =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .filter((l) => l.includes(labels))
      .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

  it('request latency, processing time, lag and callback outcomes are exported and move after traffic', async () => {
    const ingressPort = cluster.portOf('ingress');
    const before = {
      ingress: await scrape(ingressPort),
      customer: await scrape(cluster.portOf('customer')),
      projector: await scrape(cluster.portOf('projector')),
      callback: await scrape(cluster.portOf('callback')),
    };
    const comm = uniqueId('comm');
    const res = await cluster.fetch('/core-ws-rest/customer', {
      method: 'POST',
      token,
      body: JSON.stringify({
        communicationNumber: comm,
        businessUnit: 'DEMO',
        action: 'CREATE',
        sourceOfRiskLevel: 'IMPORT',
        riskLevel: 'LOW',
        customerStatus: 'ACTIVE',
        entityType: 'ORGANIZATION',
        customerExtId: uniqueId('org'),
        title: 'Metrics Ltd',
      }),
    });
    expect(res.status).toBe(200);
    await eventually(async () => receiver.acceptedFor(comm).length >= 3, 60000, 'callbacks');

    const route = 'route="/core-ws-rest/customer",method="POST",status="200"';
    await eventually(
      async () => {
        const now = await scrape(ingressPort);
        return (
          sample(now, 'http_request_duration_seconds_count', route) >
          sample(before.ingress, 'http_request_duration_seconds_count', route)
        );
      },
      10000,
      'ingress request histogram',
    );
    // No broker outage here: the publisher never had to replace its producer (decision 0041).
    expect(await scrape(ingressPort)).toMatch(/^kafka_producers_replaced(\{[^}]*\})? 0$/m);
    const customer = await scrape(cluster.portOf('customer'));
    expect(sample(customer, 'message_processing_duration_seconds_count', 'outcome="ok"')).toBeGreaterThan(
      sample(before.customer, 'message_processing_duration_seconds_count', 'outcome="ok"'),
    );
    expect(customer).toMatch(/^kafka_consumer_lag\{/m);
    // The decider's state reader has caught up: its catch-up waits are not stalled (CRSStreamReaderStalled).
    expect(customer).toMatch(
      /^stream_reader_stalled_seconds\{[^}]*reader="[^"]*customer-decider-state"[^}]*\} 0$/m,
    );
    // The projector is not on the callback path and lingers up to 250 ms per fetch (decision 0060).
    await eventually(
      async () =>
        sample(await scrape(cluster.portOf('projector')), 'message_processing_duration_seconds_count') >
        sample(before.projector, 'message_processing_duration_seconds_count'),
      10000,
      'projector processing histogram',
    );
    await eventually(
      async () => {
        const cb = await scrape(cluster.portOf('callback'));
        return (
          sample(cb, 'callback_deliveries_total', 'outcome="delivered"') >=
          sample(before.callback, 'callback_deliveries_total', 'outcome="delivered"') + 3
        );
      },
      20000,
      'callback outcomes',
    );
    const cb = await scrape(cluster.portOf('callback'));
    expect(cb).toMatch(/^callback_delivery_duration_seconds_bucket\{/m);
    expect(cb).toMatch(/^process_cpu_user_seconds_total/m);
  });

  it('evaluation and screening latency move after an EVALUATE import with screening; list snapshot ages are exported', async () => {
    const evaluationPort = cluster.portOf('evaluation');
    const screeningPort = cluster.portOf('screening');
    const before = { evaluation: await scrape(evaluationPort), screening: await scrape(screeningPort) };
    const comm = uniqueId('comm');
    const res = await cluster.fetch('/core-ws-rest/customer', {
      method: 'POST',
      token,
      body: JSON.stringify({
        communicationNumber: comm,
        requester: 'e2e',
        businessUnit: 'DEMO',
        action: 'CREATE',
        sourceOfRiskLevel: 'EVALUATE',
        customerStatus: 'ACTIVE',
        riskManagementCategory: 'IND',
        entityType: 'INDIVIDUAL',
        customerExtId: uniqueId('person'),
        firstName: 'Metric',
        lastName: 'Example',
        citizenshipCountry: 'LT',
        initializeScreeningProcesses: ['SANCTIONS', 'PEP'],
      }),
    });
    expect(res.status).toBe(200);
    // The outcomes reached the client: screening per list and the evaluated assessment.
    await eventually(
      async () => {
        const types = receiver.acceptedFor(comm).map((c) => String(c.headers['ce-type']));
        return [
          'com.crs.screening.sanctions.completed',
          'com.crs.screening.pep.completed',
          'com.crs.risk-assessment.completed',
        ].every((t) => types.includes(t));
      },
      120000,
      'screening and assessment callbacks',
    );

    // Names as registered in services/evaluation/src/app.ts and services/screening/src/app.ts.
    const evaluation = await scrape(evaluationPort);
    expect(evaluation).toMatch(/^evaluation_duration_seconds_bucket\{/m);
    expect(sample(evaluation, 'evaluation_duration_seconds_count')).toBeGreaterThan(
      sample(before.evaluation, 'evaluation_duration_seconds_count'),
    );
    const screening = await scrape(screeningPort);
    expect(screening).toMatch(/^screening_duration_seconds_bucket\{/m);
    expect(sample(screening, 'screening_duration_seconds_count', 'kind="request"')).toBeGreaterThan(
      sample(before.screening, 'screening_duration_seconds_count', 'kind="request"'),
    );
    // One age per loaded list source (services/screening/src/lists/list-catalog.ts), never negative.
    const ages = screening.split('\n').filter((l) => l.startsWith('screening_list_snapshot_age_seconds{'));
    expect(ages.length).toBeGreaterThan(0);
    expect(ages.some((l) => l.includes('list="SANCTIONS"'))).toBe(true);
    for (const l of ages) expect(Number(l.slice(l.lastIndexOf(' ') + 1))).toBeGreaterThanOrEqual(0);
  });
});
