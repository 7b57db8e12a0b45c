import { Counter, Gauge, getOrCreate, type Registry } from '@crs/runtime';

export interface RetentionMetrics {
  customers: Counter<'outcome'>;
  progress: Gauge<'count'>;
  active: Gauge;
  lastFinished: Gauge;
  failures: Counter;
}

export function retentionMetrics(registry: Registry): RetentionMetrics {
  return {
    customers: getOrCreate(
      registry,
      'retention_customers_total',
      () =>
        new Counter({
          name: 'retention_customers_total',
          help: 'Customers the retention job handled, by outcome (erased: erasure asked for; held: retention period runs; skipped: open or already erased)',
          labelNames: ['outcome'],
          registers: [registry],
        }),
    ),
    progress: getOrCreate(
      registry,
      'retention_run_progress',
      () =>
        new Gauge({
          name: 'retention_run_progress',
          help: 'Counters of the current (or last) retention run: scanned, erased, held, skipped',
          labelNames: ['count'],
          registers: [registry],
        }),
    ),
    active: getOrCreate(
      registry,
      'retention_run_active',
      () =>
        new Gauge({
          name: 'retention_run_active',
          help: '1 while this instance runs the retention job',
          registers: [registry],
        }),
    ),
    lastFinished: getOrCreate(
      registry,
      'retention_run_last_finished_timestamp_seconds',
      () =>
        new Gauge({
          name: 'retention_run_last_finished_timestamp_seconds',
          help: 'When this instance last finished a retention run (a whole pass over the customers)',
          registers: [registry],
        }),
    ),
    failures: getOrCreate(
      registry,
      'retention_run_failures_total',
      () =>
        new Counter({
          name: 'retention_run_failures_total',
          help: 'Retention runs that stopped on an error (the next check resumes them)',
          registers: [registry],
        }),
    ),
  };
}
