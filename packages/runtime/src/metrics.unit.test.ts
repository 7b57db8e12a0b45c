import { getHeapStatistics } from 'node:v8';
import { createMetricsRegistry } from './metrics';

describe('createMetricsRegistry', () => {
  it("exports the V8 heap limit beside prom-client's heap in use (CRSHeapNearLimit divides them)", async () => {
    const text = await createMetricsRegistry('probe').metrics();
    const value = (name: string) =>
      Number(new RegExp(`^${name}\\{service="probe"\\} (\\d+)`, 'm').exec(text)?.[1]);
    const limit = value('nodejs_heap_size_limit_bytes');
    expect(limit).toBe(getHeapStatistics().heap_size_limit);
    const used = value('nodejs_heap_size_used_bytes');
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(limit);
  });

  it('keeps one registry per service: two registries in one process do not clash', async () => {
    const a = await createMetricsRegistry('a').metrics();
    const b = await createMetricsRegistry('b').metrics();
    expect(a).toContain('nodejs_heap_size_limit_bytes{service="a"}');
    expect(b).toContain('nodejs_heap_size_limit_bytes{service="b"}');
  });
});
