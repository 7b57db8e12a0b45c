import { TestCluster, TestReceiver, eventually, localToken, uniqueId } from '@crs/testing';

/** Prometheus metrics of running services move with traffic (what the dashboards and alerts read). */
describe('metrics', () => {
  const cluster = new TestCluster('e2e-metrics');
  const receiver = new TestReceiver();
  let token: string;

  beforeAll(async () => {
    const port = await receiver.start(0);
    cluster.routeCallbacks({ DEMO: `http://127.0.0.1:${port}/cb` });
    await cluster.start();
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
    await eventually(async () => {
      const now = await scrape(ingressPort);
      return sample(now, 'http_request_duration_seconds_count', route) > sample(before.ingress, 'http_request_duration_seconds_count', route);
    }, 10000, 'ingress request histogram');
    const customer = await scrape(cluster.portOf('customer'));
    expect(sample(customer, 'message_processing_duration_seconds_count', 'outcome="ok"')).toBeGreaterThan(
      sample(before.customer, 'message_processing_duration_seconds_count', 'outcome="ok"'),
    );
    expect(customer).toMatch(/^kafka_consumer_lag\{/m);
    const projector = await scrape(cluster.portOf('projector'));
    expect(sample(projector, 'message_processing_duration_seconds_count')).toBeGreaterThan(sample(before.projector, 'message_processing_duration_seconds_count'));
    await eventually(async () => {
      const cb = await scrape(cluster.portOf('callback'));
      return sample(cb, 'callback_deliveries_total', 'outcome="delivered"') >= sample(before.callback, 'callback_deliveries_total', 'outcome="delivered"') + 3;
    }, 20000, 'callback outcomes');
    const cb = await scrape(cluster.portOf('callback'));
    expect(cb).toMatch(/^callback_delivery_duration_seconds_bucket\{/m);
    expect(cb).toMatch(/^process_cpu_user_seconds_total/m);
  });
});
