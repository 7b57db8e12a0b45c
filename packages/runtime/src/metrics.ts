import { getHeapStatistics } from 'node:v8';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Counter, Gauge, Histogram, Registry };

/**
 * One registry per service (never the prom-client global), so tests can build several services in
 * one process without metric name clashes.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  // prom-client reports the heap in use, not the most V8 will grow it to; the ratio of the two is what
  // tells a decider or screening pod that holds more customers than its memory was sized for
  // (CRSHeapNearLimit, docs/operations.md "Scaling").
  new Gauge({
    name: 'nodejs_heap_size_limit_bytes',
    help: 'The most V8 will grow this process heap to (--max-old-space-size, or its default)',
    registers: [registry],
    collect() {
      this.set(getHeapStatistics().heap_size_limit);
    },
  });
  return registry;
}

export function getOrCreate<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function processingHistogram(registry: Registry): Histogram<'topic' | 'handler' | 'outcome'> {
  return getOrCreate(
    registry,
    'message_processing_duration_seconds',
    () =>
      new Histogram({
        name: 'message_processing_duration_seconds',
        help: 'Time to process one consumed message, by topic, handler and outcome',
        labelNames: ['topic', 'handler', 'outcome'],
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  );
}

/**
 * `stream_reader_stalled_seconds{topic,reader}`: how long the oldest wait of a stream reader to catch up
 * (the decider before it decides on a partition, screening before it screens) has gone without progress;
 * 0 when nothing waits or the waits move. A consumer blocked on such a wait processes nothing and its
 * lag gauge is not updated, so this is the signal that a deadlock of the kind the fault suite found
 * (docs/reliability.md) leaves.
 */
export function streamReaderStalledGauge(registry: Registry): Gauge<'topic' | 'reader'> {
  return getOrCreate(
    registry,
    'stream_reader_stalled_seconds',
    () =>
      new Gauge({
        name: 'stream_reader_stalled_seconds',
        help: 'Seconds the oldest catch-up wait of a stream reader has made no progress (0: none waits, or they move)',
        labelNames: ['topic', 'reader'],
        registers: [registry],
      }),
  );
}

export function consumerLagGauge(registry: Registry): Gauge<'topic' | 'partition' | 'group'> {
  return getOrCreate(
    registry,
    'kafka_consumer_lag',
    () =>
      new Gauge({
        name: 'kafka_consumer_lag',
        help: 'Messages between the last processed offset and the high watermark',
        labelNames: ['topic', 'partition', 'group'],
        registers: [registry],
      }),
  );
}
