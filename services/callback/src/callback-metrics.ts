import { Counter, Histogram, type Registry } from '@crs/runtime';

/** The callback service's delivery metrics, shared by the batch path and the retry dispatcher. */
export interface CallbackMetrics {
  outcomes: Counter<'outcome' | 'business_unit'>;
  dead: Counter<'business_unit'>;
  latency: Histogram<'business_unit'>;
}

export function createCallbackMetrics(registry: Registry): CallbackMetrics {
  return {
    outcomes: new Counter({
      name: 'callback_deliveries_total',
      help: 'Callback delivery attempts by outcome',
      labelNames: ['outcome', 'business_unit'],
      registers: [registry],
    }),
    dead: new Counter({
      name: 'callback_dead_letters_total',
      help: 'Callbacks that exhausted their attempts',
      labelNames: ['business_unit'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'callback_delivery_duration_seconds',
      help: 'Time for one callback attempt',
      labelNames: ['business_unit'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
